/**
 * Scores fixed settings on a holdout, fitting nothing (bench/results/relevance/protocol-holdout.md): rule D and
 * rule E (D, or the self-check below S) for declining, and, behind E, the answer confidence × self-check at
 * each `--thresholds` value for the 95 % question.
 *
 *   node --import tsx bench/quality-holdout.ts --records holdout.jsonl --relevance encoder-holdout.jsonl \
 *     [--selfcheck selfcheck-holdout.jsonl] [--suite bench/data/bfcl-holdout] [--thresholds 0.823,0.819] \
 *     [--weak-confidence 0.2] [--decline 0.15|off] [--selfcheck-below 0.65]
 *
 * Settings (the shared set's, for the 1.5B): relevance < 0.262; relevance < 0.6 and answer confidence < 0.2;
 * P(decline) ≥ 0.15; self-check < 0.65. The 0.5B's: `--weak-confidence 0.3 --decline off`, no `--selfcheck`
 * (rule E and the thresholds are then left out).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import { wilsonInterval } from "../src/confidence/score-metrics.js";

const { values } = parseArgs({
  options: {
    records: { type: "string" },
    relevance: { type: "string" },
    selfcheck: { type: "string" },
    suite: { type: "string", default: "bench/data/bfcl-holdout" },
    thresholds: { type: "string", default: "0.823,0.819" },
    "weak-confidence": { type: "string", default: "0.2" },
    decline: { type: "string", default: "0.15" },
    // Rule E's self-check threshold S (protocol-holdout-b.md fixes 0.68 for the second holdout).
    "selfcheck-below": { type: "string", default: "0.65" },
  },
});
if (!values.records || !values.relevance) {
  console.error("usage: quality-holdout.ts --records FILE --relevance FILE [--selfcheck FILE]");
  process.exit(2);
}
const SETTINGS = {
  relevance: 0.262,
  weakBelow: 0.6,
  weakConfidence: Number(values["weak-confidence"]),
  decline: values.decline === "off" ? Infinity : Number(values.decline),
  selfCheck: Number(values["selfcheck-below"]),
};

interface Row {
  id: string;
  category: string;
  outcome: string;
  name?: string | null;
  correct: boolean;
  confidence: number | null;
  declineProbability?: number;
}
const lines = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const records = lines<Row>(values.records);
const relevance = new Map(lines<{ id: string; score: number }>(values.relevance).map((r) => [r.id, r.score]));
const checks = new Map(
  (values.selfcheck ? lines<{ id: string; selfCheck: number }>(values.selfcheck) : []).map((r) => [
    r.id,
    r.selfCheck,
  ]),
);
const suiteIds = bfclCases(loadBfclSuite(values.suite!, { limit: 1000 })).map((c) => c.sample.id);
const recorded = new Set(records.map((r) => r.id));
const missing = suiteIds.filter((id) => !recorded.has(id));
const proposed = records.filter((r) => r.outcome === "proposed");
const unchecked = values.selfcheck
  ? proposed.filter((r) => typeof r.name === "string" && !checks.has(r.id))
  : [];

const irrelevant = (r: Row) => r.category.includes("irrelevance");
const ruleD = (r: Row) => {
  if (r.name === null) return true;
  const score = relevance.get(r.id) ?? 1;
  return (
    score < SETTINGS.relevance ||
    (score < SETTINGS.weakBelow && (r.confidence ?? 0) < SETTINGS.weakConfidence) ||
    (r.declineProbability ?? 0) >= SETTINGS.decline
  );
};
const ruleE = (r: Row) => ruleD(r) || (checks.get(r.id) ?? 1) < SETTINGS.selfCheck;

const pct = (k: number, n: number) => (n === 0 ? "–" : `${Math.round((100 * k) / n)} % (${k}/${n})`);
const interval = (k: number, n: number) => {
  const [low, high] = wilsonInterval(k, n);
  return `${Math.round(100 * low)}–${Math.round(100 * high)} %`;
};
console.log(
  `${suiteIds.length} cases in the holdout; ${records.length} recorded (${proposed.length} proposed), ${missing.length} not run${missing.length ? `: ${missing.join(", ")}` : ""}; ${unchecked.length} calls without a self-check score\n`,
);
const irr = proposed.filter(irrelevant);
const calls = proposed.filter((r) => !irrelevant(r));
const exactToday = calls.filter((r) => r.correct).length;
console.log("| rule | irrelevance declined | 95 % Wilson | simple + multiple exact | points lost |");
console.log("|---|---|---|---|---|");
for (const [label, rule] of [
  ["today (greedy)", (r: Row) => r.name === null],
  [values.decline === "off" ? "B (relevance step only)" : "D", ruleD],
  ...(values.selfcheck ? [[`E (D, or self-check < ${SETTINGS.selfCheck})`, ruleE] as const] : []),
] as const) {
  const declined = irr.filter(rule).length;
  const exact = calls.filter((r) => r.correct && !rule(r)).length;
  const lost = (100 * (exactToday - exact)) / Math.max(1, calls.length);
  console.log(
    `| ${label} | ${pct(declined, irr.length)} | ${interval(declined, irr.length)} | ${pct(exact, calls.length)} | ${lost.toFixed(1)} |`,
  );
}

if (values.selfcheck)
  console.log("\n| behind E: answer × self-check ≥ | coverage | precision | 95 % Wilson |");
if (values.selfcheck) console.log("|---|---|---|---|");
for (const t of values.selfcheck ? values.thresholds!.split(",").map(Number) : []) {
  const accepted = proposed.filter(
    (r) => !ruleE(r) && r.name !== null && (r.confidence ?? 0) * (checks.get(r.id) ?? 1) >= t,
  );
  const right = accepted.filter((r) => r.correct).length;
  console.log(
    `| ${t} | ${pct(accepted.length, proposed.length)} | ${pct(right, accepted.length)} | ${interval(right, accepted.length)} |`,
  );
}
