import { alertTriageExamples, ALERT_TRIAGE_NODE } from "./alert-triage.fixture.js";
import { encoderModelForTests } from "./encoder-model-path.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import type { TextEncoder } from "./text-encoder.js";
import type { TrainDistilledResult } from "./train-distilled.js";
import { trainDistilledWithEncoder } from "./train-with-encoder.js";

let encoder: Promise<TextEncoder> | undefined;
let trained: Promise<TrainDistilledResult> | undefined;

/** @internal The cached all-MiniLM-L6-v2 encoder, opened once per process (never closed: the process ends). */
export function alertTriageEncoder(): Promise<TextEncoder> {
  encoder ??= GgufTextEncoder.open(encoderModelForTests());
  return encoder;
}

/**
 * @internal The example's model on the encoder, trained once per process: on a third of the training set and a sixth
 * of the styled set (as the encoder model trains on both; parts, to keep the tests' embedding time short), tuned and
 * measured on the held-out set.
 */
export function alertTriageEncoderModel(): Promise<TrainDistilledResult> {
  trained ??= alertTriageEncoder().then((e) =>
    trainDistilledWithEncoder(
      [
        ...alertTriageExamples("train").filter((_, i) => i % 3 === 0),
        ...alertTriageExamples("styled").filter((_, i) => i % 6 === 0),
      ],
      { node: ALERT_TRIAGE_NODE, heldOut: alertTriageExamples("heldOut") },
      e,
    ),
  );
  return trained;
}
