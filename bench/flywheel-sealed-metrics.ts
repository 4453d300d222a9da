// The measures of bench/flywheel-sealed.ts, as pure functions of the per-case records (tested in
// test/flywheel-sealed-metrics.test.ts): what the gate decided and how well, and — to say which level and which
// signal fall short of a target — how well the level's confidence ranks right above wrong (AUROC), the most an
// after-the-fact threshold could decide at the target precision, and the most any ranking could decide given the
// level's exact calls.
import { auroc, riskCoverage, wilsonInterval } from "../src/confidence/score-metrics.js";

/** One measured decision: what the level proposed, scored against the person's call. */
export interface ScoredCase {
  /** The proposal passed every check of the gate but the confidence one (a threshold could decide it). */
  eligible: boolean;
  /** Its confidence (0 when it gave none). */
  confidence: number;
  /** The proposal is the person's call (exact match, or the stated free-text rule). */
  exact: boolean;
  /** The gate accepted it at the level's min_confidence. */
  decided: boolean;
  /** The gate accepted it by the trust model's probability (only when a trust model was fitted). */
  trustDecided?: boolean;
}

/** What a gate decided of all the records. */
export interface GateRow {
  records: number;
  decided: number;
  correct: number;
  /** `decided / records`. */
  share: number;
  /** `correct / decided`; null when it decided nothing. */
  precision: number | null;
  /** 95 % Wilson interval of the precision; null when it decided nothing. */
  wilson: [number, number] | null;
}

/** The gate row of the cases `accepted` picks (a decided case counts right when its call is exact). */
export function gateRow(cases: readonly ScoredCase[], accepted: (c: ScoredCase) => boolean): GateRow {
  const decided = cases.filter(accepted);
  const correct = decided.filter((c) => c.exact).length;
  return {
    records: cases.length,
    decided: decided.length,
    correct,
    share: cases.length ? decided.length / cases.length : 0,
    precision: decided.length ? correct / decided.length : null,
    wilson: decided.length ? wilsonInterval(correct, decided.length) : null,
  };
}

/** AUROC of the confidence for right against wrong over the eligible proposals; null with one class only. */
export function confidenceAuroc(cases: readonly ScoredCase[]): number | null {
  return (
    auroc(cases.filter((c) => c.eligible).map((c) => ({ score: c.confidence, correct: c.exact }))) ?? null
  );
}

/**
 * After the fact: the largest share of all records that one threshold on the confidence, picked on these records
 * themselves, decides at precision ≥ `target` (ties move together), and that threshold (null: none reaches it).
 */
export function oracleShare(
  cases: readonly ScoredCase[],
  target: number,
): { share: number; threshold: number | null } {
  const eligible = cases.filter((c) => c.eligible);
  let best = { share: 0, threshold: null as number | null };
  for (const p of riskCoverage(eligible.map((c) => ({ score: c.confidence, correct: c.exact })))) {
    const share = p.accepted / cases.length;
    if (p.precision >= target && share > best.share) best = { share, threshold: p.threshold };
  }
  return best;
}

/** The most any ranking of these calls could decide at ≥ `target`: every exact call and a wrong share beside it. */
export function exactCeiling(cases: readonly ScoredCase[], target: number): number {
  if (cases.length === 0) return 0;
  const right = cases.filter((c) => c.eligible && c.exact).length;
  const wrong = cases.filter((c) => c.eligible && !c.exact).length;
  const accepted = right + Math.min(wrong, Math.floor((right * (1 - target)) / target + 1e-9));
  return accepted / cases.length;
}

/** A target: decide at least `share` of the records at a precision of at least `precision` (point estimate). */
export interface Target {
  share: number;
  precision: number;
}

/** Whether a gate row meets a target, and when not, which part falls short, in one line. */
export interface TargetVerdict {
  met: boolean;
  /** The first part that falls short: the calls, the confidence's ranking, or the threshold chosen. */
  shortOf: "calls" | "confidence" | "threshold" | "levels" | null;
  line: string;
}

const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)} %`);

/** Whether a row meets a target, and the two halves of the line that says so. */
function headline(row: GateRow, target: Target) {
  return {
    met: row.share >= target.share && row.precision !== null && row.precision >= target.precision,
    head: `${pct(row.share)} decided at ${pct(row.precision)} (Wilson lower ${pct(row.wilson?.[0] ?? null)})`,
    goal: `≥ ${pct(target.share)} at ≥ ${pct(target.precision)}`,
  };
}

/**
 * Judges `row` against `target`, and names what falls short: the level's **calls** when even a perfect ranking of
 * its exact calls could not decide the share; else its **confidence** when no threshold, even one picked after the
 * fact, decides it; else the **threshold** chosen out of fold (too high: too little decided; too low: precision).
 * `chosen` names that threshold in the line ("min_confidence 0.8", "trusted probability ≥ 0.93").
 */
export function judgeTarget(
  row: GateRow,
  cases: readonly ScoredCase[],
  target: Target,
  chosen: string,
): TargetVerdict {
  const { met, head, goal } = headline(row, target);
  if (met) return { met, shortOf: null, line: `met: ${head}; target ${goal}` };
  const ceiling = exactCeiling(cases, target.precision);
  const oracle = oracleShare(cases, target.precision);
  const auc = confidenceAuroc(cases);
  const exact = cases.length ? cases.filter((c) => c.exact).length / cases.length : 0;
  let shortOf: TargetVerdict["shortOf"];
  let why: string;
  if (ceiling < target.share) {
    shortOf = "calls";
    why = `the level's calls: ${pct(exact)} exact, so even a perfect confidence decides at most ${pct(ceiling)}`;
  } else if (oracle.share < target.share) {
    shortOf = "confidence";
    why = `the confidence's ranking (AUROC ${auc === null ? "–" : auc.toFixed(3)}): a threshold picked after the fact decides at most ${pct(oracle.share)}`;
  } else {
    shortOf = "threshold";
    why = `the threshold chosen out of fold (${chosen}): confidence ≥ ${oracle.threshold?.toFixed(3)}, picked after the fact, would decide ${pct(oracle.share)}`;
  }
  return { met, shortOf, line: `not met: ${head}; target ${goal}; short: ${why}` };
}

/**
 * Judges a chain's row against `target`. A chain has no one confidence to rank, so when it falls short the line
 * says which half (the share decided, or the precision) and the diagnosis is read from its levels' own rows.
 */
export function judgeChainTarget(row: GateRow, target: Target): TargetVerdict {
  const { met, head, goal } = headline(row, target);
  if (met) return { met, shortOf: null, line: `met: ${head}; target ${goal}` };
  const parts = [
    ...(row.share < target.share ? ["the share decided"] : []),
    ...(row.precision === null || row.precision < target.precision ? ["the precision"] : []),
  ];
  return {
    met,
    shortOf: "levels",
    line: `not met: ${head}; target ${goal}; short: ${parts.join(" and ")} (each level's own row says which signal)`,
  };
}
