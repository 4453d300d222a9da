import { seededRandom, shuffle } from "./random.js";
import { roundWeight, SGD_DEFAULTS, softmaxInPlace, type SgdOptions } from "./sgd-options.js";

/** A classifier as stored in a model file: its classes and, per feature, one weight per class. */
export interface ClassifierData {
  classes: string[];
  weights: Record<string, number[]>;
}

/** One training sample: its features, the index of its class, and an optional weight. */
export interface ClassifierSample {
  features: readonly string[];
  /** Feature values aligned with `features`; default: all equal, scaled to unit length. */
  values?: ArrayLike<number>;
  label: number;
  weight?: number;
}

/**
 * Multinomial logistic regression over sparse features (binary features scaled to unit length unless values are given),
 * trained by SGD with L2. Unknown features at prediction time are ignored, so only what was learned counts.
 */
export class SoftmaxClassifier {
  readonly classes: readonly string[];
  readonly #weights: Map<string, ArrayLike<number>>;

  constructor(data: ClassifierData) {
    this.classes = data.classes;
    this.#weights = new Map(Object.entries(data.weights));
  }

  /** Class probabilities for a feature set (sums to 1). */
  probabilities(features: readonly string[], values?: ArrayLike<number>): Float64Array {
    const c = this.classes.length;
    const scores = new Float64Array(c);
    if (c === 1) {
      scores[0] = 1;
      return scores;
    }
    const uniform = 1 / Math.sqrt(Math.max(1, features.length));
    for (let i = 0; i < features.length; i++) {
      const w = this.#weights.get(features[i]!);
      if (!w) continue;
      const x = values ? values[i]! : uniform;
      for (let k = 0; k < c; k++) scores[k] = scores[k]! + w[k]! * x;
    }
    return softmaxInPlace(scores);
  }

  /** The model-file form (weights rounded; features whose weights are all ~0 left out). */
  toJSON(): ClassifierData {
    const weights: Record<string, number[]> = {};
    for (const [f, w] of this.#weights) {
      const row = Array.from(w, roundWeight);
      if (row.some((v) => Math.abs(v) >= 1e-5)) weights[f] = row;
    }
    return { classes: [...this.classes], weights };
  }

  /** Trains on samples whose labels index `classes`. */
  static train(
    samples: readonly ClassifierSample[],
    classes: string[],
    options: SgdOptions = {},
  ): SoftmaxClassifier {
    const { epochs, learningRate, l2, seed } = { ...SGD_DEFAULTS, ...options };
    const c = classes.length;
    if (c <= 1) return new SoftmaxClassifier({ classes, weights: {} });
    const vocabulary = new Map<string, number>();
    const rows = samples.map((s) => {
      const ids = new Int32Array(s.features.length);
      s.features.forEach((f, i) => {
        let id = vocabulary.get(f);
        if (id === undefined) vocabulary.set(f, (id = vocabulary.size));
        ids[i] = id;
      });
      const uniform = 1 / Math.sqrt(Math.max(1, ids.length));
      const xs = Float64Array.from({ length: ids.length }, (_, i) => (s.values ? s.values[i]! : uniform));
      return { ids, label: s.label, weight: s.weight ?? 1, xs };
    });
    const w = new Float64Array(vocabulary.size * c);
    const scores = new Float64Array(c);
    const touched = new Int32Array(c);
    const order = rows.map((_, i) => i);
    const random = seededRandom(seed);
    let t = 0;
    for (let epoch = 0; epoch < epochs; epoch++) {
      shuffle(order, random);
      for (let o = 0; o < order.length; o++) {
        const row = rows[order[o]!]!;
        const rate = learningRate / (1 + learningRate * l2 * t++);
        const ids = row.ids;
        const n = ids.length;
        const xs = row.xs;
        scores.fill(0);
        for (let a = 0; a < n; a++) {
          const base = ids[a]! * c;
          const x = xs[a]!;
          for (let k = 0; k < c; k++) scores[k] = scores[k]! + w[base + k]! * x;
        }
        softmaxInPlace(scores);
        for (let k = 0; k < c; k++) scores[k] = (scores[k]! - (k === row.label ? 1 : 0)) * row.weight;
        const decay = 1 - rate * l2;
        // With many classes most gradients are ~0 after the first epochs; updating only the others (and letting
        // the L2 decay of the skipped ones wait) keeps training time close to linear in the tools that matter.
        let active = 0;
        for (let k = 0; k < c; k++) if (Math.abs(scores[k]!) > 1e-6) touched[active++] = k;
        for (let a = 0; a < n; a++) {
          const base = ids[a]! * c;
          const x = xs[a]!;
          for (let m = 0; m < active; m++) {
            const k = touched[m]!;
            w[base + k] = w[base + k]! * decay - rate * scores[k]! * x;
          }
        }
      }
    }
    const weights: Record<string, number[]> = {};
    for (const [f, id] of vocabulary) weights[f] = Array.from(w.subarray(id * c, id * c + c));
    return new SoftmaxClassifier({ classes, weights });
  }
}
