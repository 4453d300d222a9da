/** A scored prediction: its confidence and whether the call was exactly right. */
export interface ScoredPrediction {
  confidence: number;
  correct: boolean;
}

/** Coverage (share of predictions at or above the threshold) and precision (share of those that were right). */
export interface ThresholdPoint {
  threshold: number;
  coverage: number;
  /** `null` when nothing reaches the threshold. */
  precision: number | null;
}

/** The default thresholds a training report shows. */
export const REPORT_THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99];

/** Coverage and precision at each threshold (a prediction is kept when its confidence ≥ the threshold). */
export function thresholdTable(
  predictions: readonly ScoredPrediction[],
  thresholds: readonly number[],
): ThresholdPoint[] {
  return thresholds.map((threshold) => {
    const kept = predictions.filter((p) => p.confidence >= threshold);
    return {
      threshold,
      coverage: predictions.length ? kept.length / predictions.length : 0,
      precision: kept.length ? kept.filter((p) => p.correct).length / kept.length : null,
    };
  });
}

/**
 * The default floor of a recommended `min_confidence`: a call the calibrator itself gives less than 0.8 is never
 * accepted alone, however few wrong calls the rows that chose the threshold showed (see docs/distill.md: with
 * 20–90 such rows, worded more easily than the traffic, the smallest threshold reaching the target fell to ~0.42
 * and let through 4–5 wrong calls in ~110).
 */
export const DEFAULT_CONFIDENCE_FLOOR = 0.8;

/**
 * The smallest `min_confidence` whose kept predictions reach the target precision (so coverage is as large as
 * the target allows), rounded down to three decimals, and never below `floor`. When no threshold reaches it, 1:
 * accept nothing.
 */
export function recommendThreshold(
  predictions: readonly ScoredPrediction[],
  targetPrecision: number,
  floor = 0,
): number {
  return Math.max(floor, smallestReaching(predictions, targetPrecision));
}

function smallestReaching(predictions: readonly ScoredPrediction[], targetPrecision: number): number {
  const sorted = [...predictions].sort((a, b) => b.confidence - a.confidence);
  let right = 0;
  let best: number | undefined;
  sorted.forEach((p, i) => {
    if (p.correct) right++;
    const next = sorted[i + 1];
    // Only cut between distinct confidences: a threshold keeps every prediction with that confidence.
    if (next && next.confidence === p.confidence) return;
    if (right / (i + 1) >= targetPrecision) best = p.confidence;
  });
  if (best === undefined) return 1;
  const rounded = Math.floor(best * 1000) / 1000;
  const [atRounded] = thresholdTable(predictions, [rounded]);
  return atRounded!.precision !== null && atRounded!.precision >= targetPrecision ? rounded : best;
}
