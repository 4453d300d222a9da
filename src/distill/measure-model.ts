import { DistilledPredictor } from "./distilled-predictor.js";
import { encoderInput } from "./encoder-input.js";
import { unit } from "./gguf-text-encoder.js";
import type { ScoredOutcome } from "../confidence/score-metrics.js";
import { REPORT_THRESHOLDS, thresholdTable, type ThresholdPoint } from "../confidence/threshold.js";
import type { DistilledModelData } from "./model-file.js";
import type { TextEncoder } from "./text-encoder.js";
import { exactMatch, type TrainingExample } from "./training-examples.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";

/** A trained model measured on labelled examples it never saw. */
export interface Measurement {
  examples: number;
  /** Exact-match accuracy (tool and every argument). */
  accuracy: number;
  /** At the model's recommended `min_confidence`. */
  atRecommended: ThresholdPoint;
  /** At the report thresholds and the recommended one. */
  table: ThresholdPoint[];
  /** Each example's confidence (`score`) and whether the call was exactly right, in input order. */
  scored: ScoredOutcome[];
}

/**
 * Measures a model on labelled examples — a set that took no part in training or tuning, such as the
 * hand-written alerts: accuracy, and coverage and precision at the recommended threshold. A model trained with an
 * encoder needs that encoder (the caller checks it is the same one; see `DistilledDelegate`).
 */
export async function measureModel(
  model: DistilledModelData,
  examples: readonly TrainingExample[],
  encoder?: TextEncoder,
): Promise<Measurement> {
  const predictor = new DistilledPredictor(model);
  let vectors: Float32Array[] | undefined;
  let raw: Float32Array[] | undefined;
  if (model.encoder) {
    if (!encoder) {
      throw new DistilledModelError(`for "${model.node}"`, [`it needs its encoder ${model.encoder.name}`], {
        code: "DISTILLED_ENCODER_MISMATCH",
      });
    }
    const record = model.encoder;
    const texts = examples.map((e) => encoderInput(record, e.instruction, e.facts));
    if (model.readerHead) {
      if (!encoder.embedRaw)
        throw new DistilledModelError(`for "${model.node}"`, [
          "its reader head reads the encoder's raw vectors, which this encoder does not give",
        ]);
      raw = await encoder.embedRaw(texts);
      vectors = raw.map(unit);
    } else vectors = await encoder.embed(texts);
  }
  const scored = examples.map((e, i) => {
    const p = predictor.predict(predictor.prepare(e.instruction, e.facts, vectors?.[i]), undefined, raw?.[i]);
    return { score: p.confidence, correct: exactMatch(p, e.call) };
  });
  const recommended = model.recommendedMinConfidence;
  const thresholds = [...new Set([...REPORT_THRESHOLDS, recommended])].sort((a, b) => a - b);
  const table = thresholdTable(scored, thresholds);
  return {
    examples: examples.length,
    accuracy: scored.length ? scored.filter((s) => s.correct).length / scored.length : 0,
    atRecommended: table.find((t) => t.threshold === recommended)!,
    table,
    scored,
  };
}
