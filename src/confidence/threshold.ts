/**
 * Threshold choice: which `min_confidence` a gate should use, read from scored outcomes. One chooser for every
 * caller (`deputy calibrate`, `deputy distill`, the benches), so a recommended threshold means the same
 * wherever it was chosen.
 */
import { riskCoverage, type CoveragePoint, type ScoredOutcome } from "./score-metrics.js";

/** Coverage (share of outcomes at or above the threshold) and precision (share of those that were right). */
export interface ThresholdPoint {
  threshold: number;
  coverage: number;
  /** `null` when nothing reaches the threshold. */
  precision: number | null;
}

/** The default thresholds a report shows. */
export const REPORT_THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99];

/** Coverage and precision at each threshold (an outcome is kept when its score ≥ the threshold: equal passes). */
export function thresholdTable(
  outcomes: readonly ScoredOutcome[],
  thresholds: readonly number[],
): ThresholdPoint[] {
  return thresholds.map((threshold) => {
    const kept = outcomes.filter((o) => o.score >= threshold);
    return {
      threshold,
      coverage: outcomes.length ? kept.length / outcomes.length : 0,
      precision: kept.length ? kept.filter((o) => o.correct).length / kept.length : null,
    };
  });
}

/**
 * The lowest threshold whose accepted outcomes reach `targetPrecision` (so coverage is as large as the target
 * allows), with its coverage and precision; `undefined` when no threshold reaches it.
 *
 * The threshold is a score seen in `outcomes`, shown rounded down to three decimals **only when the rounded
 * value accepts exactly the same outcomes** (no score lies between it and the chosen one); otherwise the exact
 * score is kept. Rounding may make a threshold readable but must never let in an outcome the choice excluded:
 * a plain floor (0.9995 → 0.999) would accept a wrong call scored 0.9992 and break the precision it promises.
 */
export function chooseThreshold(
  outcomes: readonly ScoredOutcome[],
  targetPrecision: number,
): CoveragePoint | undefined {
  let best: CoveragePoint | undefined;
  for (const point of riskCoverage(outcomes)) if (point.precision >= targetPrecision) best = point;
  if (!best) return undefined;
  return { ...best, threshold: roundedThreshold(outcomes, best.threshold) };
}

/**
 * {@link chooseThreshold}'s threshold, never below `floor`; 1 (accept nothing) when no threshold reaches the
 * target, whatever the floor.
 */
export function recommendThreshold(
  outcomes: readonly ScoredOutcome[],
  targetPrecision: number,
  floor = 0,
): number {
  const chosen = chooseThreshold(outcomes, targetPrecision);
  return chosen ? Math.max(floor, chosen.threshold) : 1;
}

function roundedThreshold(outcomes: readonly ScoredOutcome[], exact: number): number {
  const rounded = Math.floor(exact * 1000) / 1000;
  if (rounded > exact) return exact;
  return outcomes.some((o) => o.score >= rounded && o.score < exact) ? exact : rounded;
}
