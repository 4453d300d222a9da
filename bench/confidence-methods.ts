/**
 * Compares confidence methods on labelled proposals that carry per-token probabilities (bench/quality-run.ts
 * --tokens), the way docs/quality.md reports them: each method is chosen and its threshold (and any fitted map)
 * set on the *fit* split only; AUROC, ECE, precision and coverage are reported on the separate *report* split.
 * The split is by a hash of the case id (stable, about half each, independent of run order).
 *
 *   node --import tsx bench/confidence-methods.ts RECORDS.jsonl [--svg docs/images/risk-coverage.svg]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { answerConfidence, valueTokens } from "../src/confidence/answer-confidence.js";
import { Calibrator } from "../src/confidence/calibrator.js";
import type { EvalRecord } from "../src/eval/evaluate-case.js";
import {
  auroc,
  expectedCalibrationError,
  riskCoverage,
  type ScoredOutcome,
} from "../src/confidence/score-metrics.js";
import { chooseThreshold } from "../src/confidence/threshold.js";
import { riskCoverageSvg } from "./risk-coverage-svg.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { svg: { type: "string" }, target: { type: "string", default: "0.95" } },
});
const target = Number(values.target);
type Row = EvalRecord & { tokens?: { piece: string; grammar: number; raw?: number }[] };
const rows = readFileSync(positionals[0] ?? "bench/results/qwen2.5-coder-0.5b/local-tokens.jsonl", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => r.outcome === "proposed" && r.tokens && r.tokens.length > 0 && r.confidence !== null);

/** FNV-1a: the split must not depend on run order or on how many cases ran. */
function fit(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 2 === 0;
}

const clamp = (p: number) => Math.min(1 - 1e-9, Math.max(1e-9, p));
const logit = (p: number) => Math.log(clamp(p) / (1 - clamp(p)));
const g = (r: Row) => r.tokens!.map((t) => t.grammar);
const valueScores = (r: Row, pick: (t: { grammar: number; raw?: number }) => number) => {
  const mask = valueTokens(r.tokens!.map((t) => t.piece));
  const xs = r.tokens!.filter((_, i) => mask[i]).map(pick);
  return xs.length > 0 ? xs : [1];
};
/** The value tokens' probabilities under the grammar, or raw, combined as the answer confidence combines them. */
const grammarValues = (r: Row, how: "joint" | "min" | "mean") =>
  answerConfidence(
    valueScores(r, (t) => t.grammar),
    how,
  );
const rawValues = (r: Row, how: "joint" | "min" | "mean") =>
  answerConfidence(
    valueScores(r, (t) => t.raw ?? 0),
    how,
  );
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rawOf = (r: Row) => r.tokens!.map((t) => t.raw ?? 0);
const geo = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(clamp(x)), 0) / xs.length);

/** Candidate scores: each maps a record to a number in [0, 1] (higher = more likely right). */
const methods: Record<string, (r: Row) => number> = {
  "choice confidence (old default)": (r) => r.confidence!,
  "mean raw token probability": (r) => r.meanTokenProbability ?? 0,
  "min raw token probability": (r) => Math.min(...rawOf(r)),
  "geometric mean raw token probability": (r) => geo(rawOf(r)),
  "answer probability under the grammar (joint)": (r) => answerConfidence(g(r), "joint"),
  "least likely choice under the grammar (min)": (r) => answerConfidence(g(r), "min"),
  "choice × least likely choice": (r) => r.confidence! * answerConfidence(g(r), "min"),
  "values: joint under the grammar": (r) => grammarValues(r, "joint"),
  "values: min under the grammar": (r) => grammarValues(r, "min"),
  "values: mean under the grammar": (r) => grammarValues(r, "mean"),
  "values: joint raw": (r) => rawValues(r, "joint"),
  "values: min raw": (r) => Math.min(...valueScores(r, (t) => t.raw ?? 0)),
  "values: mean raw": (r) => mean(valueScores(r, (t) => t.raw ?? 0)),
};

interface Result {
  name: string;
  fitAuroc: number | undefined;
  fitEce: number;
  report: ScoredOutcome[];
  threshold: number | undefined;
}

const fitRows = rows.filter((r) => fit(r.id));
const reportRows = rows.filter((r) => !fit(r.id));
const results: Result[] = [];
for (const [name, score] of Object.entries(methods)) {
  const f = fitRows.map((r) => ({ score: score(r), correct: r.correct }));
  results.push({
    name,
    fitAuroc: auroc(f),
    fitEce: expectedCalibrationError(f),
    report: reportRows.map((r) => ({ score: score(r), correct: r.correct })),
    threshold: chooseThreshold(f, target)?.threshold,
  });
}
// Logistic calibration on the fit split (what `deputy calibrate` fits), of each single score and of two together.
const calibrated = (name: string, inputs: (r: Row) => number[]) => {
  const features = inputs(fitRows[0]!).map((_, i) => `x${i}`);
  const c = Calibrator.fit(
    fitRows.map((r) => ({ inputs: inputs(r), correct: r.correct })),
    0.01,
    features,
  );
  const f = fitRows.map((r) => ({ score: c.confidence(inputs(r)), correct: r.correct }));
  results.push({
    name,
    fitAuroc: auroc(f),
    fitEce: expectedCalibrationError(f),
    report: reportRows.map((r) => ({ score: c.confidence(inputs(r)), correct: r.correct })),
    threshold: chooseThreshold(f, target)?.threshold,
  });
};
calibrated("calibrated: joint", (r) => [logit(answerConfidence(g(r), "joint"))]);
calibrated("calibrated: min", (r) => [logit(answerConfidence(g(r), "min"))]);
calibrated("calibrated: choice + mean raw (old calibrate)", (r) => [
  logit(r.confidence!),
  logit(r.meanTokenProbability ?? 0),
]);
calibrated("calibrated: values joint under the grammar", (r) => [logit(grammarValues(r, "joint"))]);
calibrated("calibrated: values min under the grammar", (r) => [logit(grammarValues(r, "min"))]);
calibrated("calibrated: values joint raw", (r) => [logit(rawValues(r, "joint"))]);
calibrated("calibrated: values mean under the grammar", (r) => [logit(grammarValues(r, "mean"))]);
calibrated("calibrated: values joint under the grammar + mean raw", (r) => [
  logit(grammarValues(r, "joint")),
  logit(r.meanTokenProbability ?? 0),
]);
calibrated("calibrated: joint + mean raw", (r) => [
  logit(answerConfidence(g(r), "joint")),
  logit(r.meanTokenProbability ?? 0),
]);

const f2 = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(2));
const count = (rs: Row[]) => `${rs.length} (${rs.filter((r) => r.correct).length} right)`;
console.log(`fit split: ${count(fitRows)}; report split: ${count(reportRows)}; target precision ${target}`);
const byCategory = new Map<string, number>();
for (const r of rows) byCategory.set(r.category, (byCategory.get(r.category) ?? 0) + 1);
console.log(`categories: ${[...byCategory].map(([c, n]) => `${c} ${n}`).join(", ")}`);
console.log();
console.log(
  `| method | AUROC fit | AUROC report | ECE report | threshold (fit, ≥ ${target * 100} %) | report: coverage | report: precision | report: best coverage at ≥ ${target * 100} % |`,
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of results) {
  const accepted = r.threshold === undefined ? [] : r.report.filter((o) => o.score >= r.threshold!);
  const right = accepted.filter((o) => o.correct).length;
  const best = chooseThreshold(r.report, target);
  console.log(
    `| ${r.name} | ${f2(r.fitAuroc)} | ${f2(auroc(r.report))} | ${f2(expectedCalibrationError(r.report))} | ${
      r.threshold === undefined ? "none" : r.threshold.toPrecision(3)
    } | ${((100 * accepted.length) / r.report.length).toFixed(0)} % (${accepted.length}/${r.report.length}) | ${
      accepted.length
        ? `${((100 * right) / accepted.length).toFixed(0)} % (${right}/${accepted.length})`
        : "–"
    } | ${best ? `${(best.coverage * 100).toFixed(0)} %` : "none"} |`,
  );
}
// The rule, fixed before the final numbers: among the scores deputy can compute from the generation alone (value
// tokens under the grammar), those within 0.01 of the best AUROC on the fit split are ties; of these the one with
// the lowest ECE on the fit split (a min_confidence that means what it says) becomes the default.
const free = results.filter((r) => r.name.startsWith("values: ") && r.name.endsWith("under the grammar"));
const bestFit = Math.max(...free.map((r) => r.fitAuroc ?? 0));
const chosen = free
  .filter((r) => (r.fitAuroc ?? 0) >= bestFit - 0.01)
  .reduce((a, b) => (b.fitEce < a.fitEce ? b : a));
console.log();
console.log(
  `chosen on the fit split: ${chosen.name} (fit AUROC ${f2(chosen.fitAuroc)}, fit ECE ${f2(chosen.fitEce)})`,
);
if (values.svg) {
  const pick = [
    "choice confidence (old default)",
    "mean raw token probability",
    chosen.name,
    // deputy's default: the same joint over raw probabilities (the grammar version costs +36 % CPU a proposal).
    "values: joint raw",
  ];
  writeFileSync(
    values.svg,
    riskCoverageSvg(
      results
        .filter((r) => pick.includes(r.name))
        .map((r) => ({ label: `${r.name} (report split)`, points: riskCoverage(r.report) })),
    ),
  );
  console.error(`wrote ${values.svg}`);
}
