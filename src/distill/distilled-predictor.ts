import { Calibrator, type CalibratorData } from "../confidence/calibrator.js";
import { calibrationInputs } from "./calibration-inputs.js";
import { ClassHead } from "./class-head.js";
import { familiarity } from "./familiarity.js";
import { prepareInput, withoutEmbedding, type PreparedInput } from "./input-features.js";
import { DECLINE_CLASS, type CrossCheckData, type DistilledModelData } from "./model-file.js";
import type { CallOrDecline } from "../records/hop.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { NumberHead } from "./number-head.js";
import { readerHeadLogits, softmax, type ReaderHeadData } from "./reader-head.js";
import { SoftmaxClassifier } from "./softmax-classifier.js";
import { SpanHead } from "./span-head.js";

/** The parts of a model file the predictor needs (the trainer builds these before it has a calibrator). */
export type PredictorData = Pick<
  DistilledModelData,
  "features" | "toolHead" | "arguments" | "familiarity"
> & {
  calibration?: CalibratorData;
  crossCheck?: CrossCheckData;
  readerHead?: ReaderHeadData;
};

/** One prediction: the call (or a decline), the probability of the whole call, and its calibrated confidence. */
export interface Prediction extends CallOrDecline {
  /** P(tool) × P(each argument), uncalibrated. */
  callProbability: number;
  /** The inputs of the calibrator (call logit and familiarity). */
  calibrationInputs: number[];
  /**
   * Calibrated probability that the call is exactly right; `callProbability` when there is no calibrator; 0 when the
   * model's n-gram cross-check proposes another call.
   */
  confidence: number;
  /** With a cross-check: whether the n-gram-only model proposed the same call. */
  crossCheckAgrees?: boolean;
}

type Head = ClassHead | SpanHead | NumberHead;

/**
 * Predicts one call from an instruction and facts: the tool (or decline) by the tool head, then each argument of
 * that tool by its head, then the calibrated confidence of the whole call.
 */
export class DistilledPredictor {
  readonly #data: PredictorData;
  readonly #toolHead: SoftmaxClassifier;
  readonly #heads = new Map<string, [string, Head][]>();
  readonly #calibrator: Calibrator | undefined;
  readonly #check: DistilledPredictor | undefined;
  readonly #reader: ReaderHeadData | undefined;

  constructor(data: PredictorData) {
    this.#data = data;
    this.#toolHead = new SoftmaxClassifier(data.toolHead);
    for (const [tool, args] of Object.entries(data.arguments)) {
      this.#heads.set(
        tool,
        Object.entries(args).map(([name, head]) => [
          name,
          head.kind === "class"
            ? new ClassHead(head)
            : head.kind === "span"
              ? new SpanHead(head)
              : new NumberHead(head),
        ]),
      );
    }
    this.#calibrator = data.calibration ? new Calibrator(data.calibration) : undefined;
    this.#reader = data.readerHead;
    const check = data.crossCheck;
    this.#check =
      check && new DistilledPredictor({ features: data.features, familiarity: data.familiarity, ...check });
  }

  /** The class values an argument head can produce (undefined for span and number heads). */
  classValues(tool: string, argument: string): readonly unknown[] | undefined {
    const head = this.#heads.get(tool)?.find(([name]) => name === argument)?.[1];
    return head instanceof ClassHead ? head.values : undefined;
  }

  /** Features and copyable texts of an input (with the encoder's vector of the instruction, when it has one). */
  prepare(instruction: string, facts: Record<string, unknown>, embedding?: Float32Array): PreparedInput {
    return prepareInput(instruction, facts, this.#data.features, embedding);
  }

  /** Whether the model takes its class decision from a tuned reader's head (which reads `raw` in {@link predict}). */
  get readsRaw(): boolean {
    return this.#reader !== undefined;
  }

  /**
   * The most probable call. `offered` limits the tools to those a node offers; probabilities stay normalised over
   * every tool the model knows, so a tool picked only because the better one is not offered keeps its low
   * probability. A model with a reader head needs `raw`, the reader's vector before it was scaled to unit length.
   */
  predict(input: PreparedInput, offered?: ReadonlySet<string>, raw?: Float32Array): Prediction {
    if (this.#reader) {
      if (!raw)
        throw new DistilledModelError("<model>", [
          "its reader head predicts from the reader's raw vector, which was not given",
        ]);
      return this.#predictByReader(this.#reader, input, raw, offered);
    }
    const classes = this.#toolHead.classes;
    const p = this.#toolHead.probabilities(input.features, input.values);
    let best = -1;
    for (let k = 0; k < classes.length; k++) {
      const c = classes[k]!;
      if (offered && c !== DECLINE_CLASS && !offered.has(c)) continue;
      if (best < 0 || p[k]! > p[best]!) best = k;
    }
    const choice = best < 0 ? DECLINE_CLASS : classes[best]!;
    let probability = best < 0 ? 0 : p[best]!;
    const args: Record<string, unknown> = {};
    if (choice !== DECLINE_CLASS) {
      for (const [name, head] of this.#heads.get(choice) ?? []) {
        const r = head.predict(input);
        probability *= r.probability;
        if (r.present) args[name] = r.value;
      }
    }
    const fam = familiarity(this.#data.familiarity, input.words);
    const inputs = calibrationInputs(probability, fam.known, fam.unknown);
    const name = choice === DECLINE_CLASS ? null : choice;
    const confidence = this.#calibrator ? this.#calibrator.confidence(inputs) : probability;
    if (!this.#check)
      return { name, arguments: args, callProbability: probability, calibrationInputs: inputs, confidence };
    const other = this.#check.predict(withoutEmbedding(input), offered);
    const agrees = sameCall(other, { name, arguments: args });
    return {
      name,
      arguments: args,
      callProbability: probability,
      calibrationInputs: inputs,
      confidence: agrees ? confidence : 0,
      crossCheckAgrees: agrees,
    };
  }

  /**
   * The reader head's most probable label among the offered tools decides the tool and its chosen arguments; the
   * model's own heads fill in the rest (spans, numbers). The confidence is the label's probability times each
   * filled argument's: the calibrator and the n-gram cross-check were fitted on the model's own tool head, not on
   * this one, and are not applied.
   */
  #predictByReader(
    head: ReaderHeadData,
    input: PreparedInput,
    raw: Float32Array,
    offered?: ReadonlySet<string>,
  ): Prediction {
    const p = softmax(readerHeadLogits(head, raw));
    let best = -1;
    for (const [k, label] of head.labels.entries()) {
      if (offered && label.name !== null && !offered.has(label.name)) continue;
      if (best < 0 || p[k]! > p[best]!) best = k;
    }
    const label = best < 0 ? { name: null, arguments: {} } : head.labels[best]!;
    let probability = best < 0 ? 0 : p[best]!;
    const args: Record<string, unknown> = { ...label.arguments };
    if (label.name !== null)
      for (const [name, h] of this.#heads.get(label.name) ?? []) {
        if (Object.hasOwn(label.arguments, name)) continue;
        const r = h.predict(input);
        probability *= r.probability;
        if (r.present) args[name] = r.value;
      }
    const fam = familiarity(this.#data.familiarity, input.words);
    return {
      name: label.name,
      arguments: args,
      callProbability: probability,
      calibrationInputs: calibrationInputs(probability, fam.known, fam.unknown),
      confidence: probability,
    };
  }
}

/** Whether two predictions are the same call (tool and every argument). */
export function sameCall(a: CallOrDecline, b: CallOrDecline): boolean {
  return a.name === b.name && canonicalJson(a.arguments) === canonicalJson(b.arguments);
}
