import type { PreparedInput } from "./input-features.js";
import type { SgdOptions } from "./sgd-options.js";
import { SoftmaxClassifier, type ClassifierData } from "./softmax-classifier.js";

/**
 * An argument chosen from the values seen in training (enums, booleans, strings that repeat, anything that is
 * neither a span nor a number of the text). Class names are the values as JSON; `<absent>` leaves it out.
 */
export interface ClassHeadData {
  kind: "class";
  classifier: ClassifierData;
}

/** The class of a left-out argument. */
export const ABSENT_CLASS = "<absent>";

/** Trains a class head; `value` undefined means the argument was absent. */
export function trainClassHead(
  samples: { input: PreparedInput; value: unknown }[],
  sgd: SgdOptions,
): ClassHeadData {
  const keys = samples.map((s) => (s.value === undefined ? ABSENT_CLASS : JSON.stringify(s.value)));
  const classes = [...new Set(keys)].sort();
  const index = new Map(classes.map((c, i) => [c, i]));
  const classifier = SoftmaxClassifier.train(
    samples.map((s, i) => ({
      features: s.input.features,
      values: s.input.values,
      label: index.get(keys[i]!)!,
    })),
    classes,
    sgd,
  );
  return { kind: "class", classifier: classifier.toJSON() };
}

/** A class head ready to predict. */
export class ClassHead {
  readonly #classifier: SoftmaxClassifier;
  readonly #values: unknown[];

  constructor(data: ClassHeadData) {
    this.#classifier = new SoftmaxClassifier(data.classifier);
    this.#values = data.classifier.classes.map((c) => (c === ABSENT_CLASS ? undefined : JSON.parse(c)));
  }

  /** The values this head can produce (for compatibility checks against a tool's current schema). */
  get values(): readonly unknown[] {
    return this.#values.filter((v) => v !== undefined);
  }

  /** The most probable value (or absence) with its probability. */
  predict(input: PreparedInput): { present: boolean; value?: unknown; probability: number } {
    const p = this.#classifier.probabilities(input.features, input.values);
    let k = 0;
    for (let m = 1; m < p.length; m++) if (p[m]! > p[k]!) k = m;
    const value = this.#values[k];
    return value === undefined
      ? { present: false, probability: p[k]! }
      : { present: true, value, probability: p[k]! };
  }
}
