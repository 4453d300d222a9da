/**
 * The calibrator: a map from a delegate's raw scores to the probability that its call is exactly right, shared by
 * the LLM backends' per-model calibration (`deputy calibrate`) and the distilled delegate's model file.
 */

/** The calibration map as stored in a file: logistic regression on standardised inputs. */
export interface CalibratorData {
  method: "logistic";
  /** Names of the inputs, in order (what the writer fed it: its file format says what each one is). */
  inputs: string[];
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

/** One calibration row: the inputs of a prediction, whether the call was exactly right, and its weight. */
export interface CalibrationRow {
  inputs: number[];
  correct: boolean;
  weight?: number;
}

/** The logit of a probability, clamped to [1e-6, 1 − 1e-6] so that a certain score stays finite. */
export function logit(p: number): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
}

/** Maps calibration inputs to the probability that the call is exactly right. */
export class Calibrator {
  readonly #data: CalibratorData;

  constructor(data: CalibratorData) {
    this.#data = data;
  }

  /** The calibrated probability. */
  confidence(inputs: readonly number[]): number {
    const { mean, scale, weights, bias } = this.#data;
    let z = bias;
    for (let i = 0; i < weights.length; i++) z += weights[i]! * ((inputs[i]! - mean[i]!) / scale[i]!);
    return 1 / (1 + Math.exp(-z));
  }

  /** The model-file form. */
  toJSON(): CalibratorData {
    return this.#data;
  }

  /**
   * Fits weighted logistic regression (Newton's method, L2 `l2` on the weights, not the bias) to rows whose
   * inputs come from predictions on data the scorer did not train on. `inputs` names the row inputs for the
   * stored form (default `x0`, `x1`, …: the caller's file format gives them meaning, see delegate-calibration.ts
   * and distill's calibration-inputs.ts).
   */
  static fit(
    rows: readonly CalibrationRow[],
    l2 = 0.01,
    inputs: readonly string[] = (rows[0]?.inputs ?? []).map((_, i) => `x${i}`),
  ): Calibrator {
    const d = inputs.length;
    const total = rows.reduce((s, r) => s + (r.weight ?? 1), 0) || 1;
    const mean = Array.from(
      { length: d },
      (_, i) => rows.reduce((s, r) => s + (r.weight ?? 1) * r.inputs[i]!, 0) / total,
    );
    const scale = mean.map((m, i) => {
      const v = rows.reduce((s, r) => s + (r.weight ?? 1) * (r.inputs[i]! - m) ** 2, 0) / total;
      return Math.sqrt(v) || 1;
    });
    const x = rows.map((r) => [1, ...r.inputs.map((v, i) => (v - mean[i]!) / scale[i]!)]);
    const beta = new Array<number>(d + 1).fill(0);
    for (let iteration = 0; iteration < 50; iteration++) {
      const grad = new Array<number>(d + 1).fill(0);
      const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
      rows.forEach((r, n) => {
        const xn = x[n]!;
        const p = 1 / (1 + Math.exp(-xn.reduce((s, v, i) => s + v * beta[i]!, 0)));
        const w = r.weight ?? 1;
        const g = (p - (r.correct ? 1 : 0)) * w;
        const h = Math.max(p * (1 - p), 1e-9) * w;
        for (let i = 0; i <= d; i++) {
          grad[i] = grad[i]! + g * xn[i]!;
          for (let j = 0; j <= d; j++) hess[i]![j] = hess[i]![j]! + h * xn[i]! * xn[j]!;
        }
      });
      for (let i = 1; i <= d; i++) {
        grad[i] = grad[i]! + l2 * total * beta[i]!;
        hess[i]![i] = hess[i]![i]! + l2 * total;
      }
      const step = solve(hess, grad);
      let change = 0;
      for (let i = 0; i <= d; i++) {
        beta[i] = beta[i]! - step[i]!;
        change = Math.max(change, Math.abs(step[i]!));
      }
      if (change < 1e-8) break;
    }
    return new Calibrator({
      method: "logistic",
      inputs: [...inputs],
      mean,
      scale,
      weights: beta.slice(1),
      bias: beta[0]!,
    });
  }
}

/**
 * Solves a small dense system by Gaussian elimination with partial pivoting (Newton's step above).
 *
 * @internal
 */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / p;
      if (f === 0) continue;
      for (let c = col; c <= n; c++) m[r]![c] = m[r]![c]! - f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / (row[i]! || 1e-12));
}
