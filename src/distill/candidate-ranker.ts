import { seededRandom, shuffle } from "./random.js";
import { roundWeight, SGD_DEFAULTS, softmaxInPlace, type SgdOptions } from "./sgd-options.js";

/** A ranker as stored in a model file: one weight per feature. */
export interface RankerData {
  weights: Record<string, number>;
}

/** One training group: the candidates' features and the index of the right one. */
export interface RankerGroup {
  candidates: readonly (readonly string[])[];
  gold: number;
}

/**
 * A log-linear (conditional logit) ranker: P(candidate) ∝ exp(Σ weights of its features), trained by SGD with L2
 * on the log-likelihood of the right candidate. The argument heads use it to pick a span's start and end, or the
 * number in the text an argument takes.
 */
export class CandidateRanker {
  readonly #weights: Map<string, number>;

  constructor(data: RankerData) {
    this.#weights = new Map(Object.entries(data.weights));
  }

  /** A candidate's score (the log of its unnormalised probability). */
  score(features: readonly string[]): number {
    let s = 0;
    for (const f of features) s += this.#weights.get(f) ?? 0;
    return s;
  }

  /** Probabilities over candidates (sums to 1; empty for no candidates). */
  probabilities(candidates: readonly (readonly string[])[]): Float64Array {
    const scores = new Float64Array(candidates.length);
    candidates.forEach((c, i) => (scores[i] = this.score(c)));
    return candidates.length ? softmaxInPlace(scores) : scores;
  }

  /** The model-file form (rounded; ~0 weights left out). */
  toJSON(): RankerData {
    const weights: Record<string, number> = {};
    for (const [f, w] of this.#weights) {
      const v = roundWeight(w);
      if (Math.abs(v) >= 1e-5) weights[f] = v;
    }
    return { weights };
  }

  /** Trains on groups whose `gold` indexes the right candidate. */
  static train(groups: readonly RankerGroup[], options: SgdOptions = {}): CandidateRanker {
    const { epochs, learningRate, l2, seed } = { ...SGD_DEFAULTS, ...options };
    const vocabulary = new Map<string, number>();
    const encoded = groups.map((g) => ({
      gold: g.gold,
      candidates: g.candidates.map((features) =>
        Int32Array.from(features, (f) => {
          let id = vocabulary.get(f);
          if (id === undefined) vocabulary.set(f, (id = vocabulary.size));
          return id;
        }),
      ),
    }));
    const w = new Float64Array(vocabulary.size);
    const order = encoded.map((_, i) => i);
    const random = seededRandom(seed);
    let t = 0;
    for (let epoch = 0; epoch < epochs; epoch++) {
      shuffle(order, random);
      for (const i of order) {
        const group = encoded[i]!;
        if (group.candidates.length < 2) continue;
        const rate = learningRate / (1 + learningRate * l2 * t++);
        const p = new Float64Array(group.candidates.length);
        group.candidates.forEach((ids, k) => {
          let s = 0;
          for (const id of ids) s += w[id]!;
          p[k] = s;
        });
        softmaxInPlace(p);
        group.candidates.forEach((ids, k) => {
          const g = p[k]! - (k === group.gold ? 1 : 0);
          if (Math.abs(g) < 1e-9) return;
          for (const id of ids) w[id] = w[id]! - rate * (g + l2 * w[id]!);
        });
      }
    }
    const weights: Record<string, number> = {};
    for (const [f, id] of vocabulary) weights[f] = w[id]!;
    return new CandidateRanker({ weights });
  }
}
