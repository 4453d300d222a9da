/**
 * Scores of a confidence measured against outcomes: how well it ranks right above wrong (AUROC), how well it
 * reads as a probability (ECE), the risk–coverage curve a threshold moves along, and the interval to quote
 * beside a precision measured on few proposals.
 */

/** A scored outcome: the score a gate would threshold (a confidence), and whether the call was exactly right. */
export interface ScoredOutcome {
  score: number;
  correct: boolean;
}

/**
 * Area under the ROC curve of `score` for "correct": the probability that a random right proposal scores above a
 * random wrong one (ties count half). `undefined` when either class is empty.
 */
export function auroc(outcomes: readonly ScoredOutcome[]): number | undefined {
  const sorted = [...outcomes].sort((a, b) => a.score - b.score);
  const positives = sorted.filter((o) => o.correct).length;
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) return undefined;
  // Mann–Whitney U with average ranks for ties.
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.score === sorted[i]!.score) j++;
    const averageRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.correct) rankSum += averageRank;
    i = j;
  }
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/**
 * Expected calibration error with `bins` equal-width bins over [0, 1]: the share-weighted mean gap between the
 * mean score and the share correct in each bin. 0 is perfectly calibrated.
 */
export function expectedCalibrationError(outcomes: readonly ScoredOutcome[], bins = 10): number {
  if (outcomes.length === 0) return 0;
  const sums = Array.from({ length: bins }, () => ({ n: 0, score: 0, correct: 0 }));
  for (const o of outcomes) {
    const bin = sums[Math.min(bins - 1, Math.max(0, Math.floor(o.score * bins)))]!;
    bin.n++;
    bin.score += o.score;
    bin.correct += o.correct ? 1 : 0;
  }
  return sums.reduce(
    (e, b) => (b.n === 0 ? e : e + ((b.n / outcomes.length) * Math.abs(b.score - b.correct)) / b.n),
    0,
  );
}

/** One point of a risk–coverage curve: accept every proposal scoring at least `threshold`. */
export interface CoveragePoint {
  threshold: number;
  /** Share of all proposals accepted. */
  coverage: number;
  /** Share of the accepted ones that are right. */
  precision: number;
  accepted: number;
}

/**
 * The risk–coverage curve: for each distinct score (highest first) as `min_confidence`, the share accepted and
 * the precision of what is accepted. The last point accepts everything (precision = accuracy).
 */
export function riskCoverage(outcomes: readonly ScoredOutcome[]): CoveragePoint[] {
  const sorted = [...outcomes].sort((a, b) => b.score - a.score);
  const points: CoveragePoint[] = [];
  let correct = 0;
  for (let i = 0; i < sorted.length; i++) {
    correct += sorted[i]!.correct ? 1 : 0;
    if (i + 1 < sorted.length && sorted[i + 1]!.score === sorted[i]!.score) continue;
    points.push({
      threshold: sorted[i]!.score,
      coverage: (i + 1) / sorted.length,
      precision: correct / (i + 1),
      accepted: i + 1,
    });
  }
  return points;
}

/**
 * The Wilson score interval for a share of `successes` in `n` trials (`z` 1.96: 95 %): the interval to quote
 * beside a precision measured on a few dozen proposals. `[0, 1]` when `n` is 0.
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
