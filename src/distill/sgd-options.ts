/** Stochastic gradient descent settings shared by the classifiers and rankers. */
export interface SgdOptions {
  /** Passes over the data. Default 10. */
  epochs?: number;
  /** Initial step size (it decays as 1 / (1 + rate·l2·t)). Default 0.5. */
  learningRate?: number;
  /** L2 penalty. Default 1e-4. */
  l2?: number;
  /** Seed of the example order. Default 1. */
  seed?: number;
}

/** The defaults of {@link SgdOptions}, declared once. */
export const SGD_DEFAULTS: Required<SgdOptions> = { epochs: 10, learningRate: 0.5, l2: 1e-4, seed: 1 };

/** Rounds a weight for the model file (five significant digits keep predictions identical in practice). */
export function roundWeight(w: number): number {
  return Number(w.toPrecision(5));
}

/** Softmax in place over `scores`; returns it. */
export function softmaxInPlace(scores: Float64Array): Float64Array {
  let max = -Infinity;
  for (const s of scores) if (s > max) max = s;
  let sum = 0;
  for (let i = 0; i < scores.length; i++) {
    const e = Math.exp(scores[i]! - max);
    scores[i] = e;
    sum += e;
  }
  for (let i = 0; i < scores.length; i++) scores[i] = scores[i]! / sum;
  return scores;
}
