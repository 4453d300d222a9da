/**
 * Turns the JSONL records of bench/quality-run.ts into docs/quality.md's tables (printed as markdown) and the
 * risk–coverage figure (docs/images/risk-coverage.svg).
 *
 *   node --import tsx bench/quality-report.ts RESULTS_DIR [--svg docs/images/risk-coverage.svg]
 *
 * RESULTS_DIR holds one `<backend>.jsonl` per backend (local, llama-server, free-form).
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { BFCL_CATEGORIES } from "../src/eval/bfcl-suite.js";
import type { EvalRecord } from "../src/eval/evaluate-case.js";
import { outOfFoldCalibratedScores } from "../src/confidence/fit-calibration.js";
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
  options: { svg: { type: "string" } },
});
const dir = positionals[0] ?? "bench/results/qwen2.5-coder-0.5b";
const runs = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => ({
    backend: basename(f, ".jsonl"),
    records: readFileSync(join(dir, f), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EvalRecord),
  }));

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(0)} % (${n}/${d})`);
const f2 = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(2));

// Accuracy per category and backend (skipped cases left out; backend errors count as wrong).
console.log(`| category | ${runs.map((r) => r.backend).join(" | ")} |`);
console.log(`|---|${runs.map(() => "---").join("|")}|`);
for (const category of [...BFCL_CATEGORIES, "all"] as const) {
  const cells = runs.map(({ records }) => {
    const rs = records.filter(
      (r) => (category === "all" || r.category === category) && r.outcome !== "skipped",
    );
    return pct(rs.filter((r) => r.correct).length, rs.length);
  });
  console.log(`| ${category} | ${cells.join(" | ")} |`);
}
console.log();
console.log("| backend | mean latency | backend errors | declined on call categories |");
console.log("|---|---|---|---|");
for (const { backend, records } of runs) {
  const rs = records.filter((r) => r.outcome !== "skipped");
  const mean = rs.reduce((s, r) => s + r.latencyMs, 0) / (rs.length || 1);
  const calls = rs.filter((r) => r.category === "simple" || r.category === "multiple");
  console.log(
    `| ${backend} | ${(mean / 1000).toFixed(1)} s | ${rs.filter((r) => r.outcome === "backend_error").length} | ${
      calls.filter((r) => r.name === null).length
    }/${calls.length} |`,
  );
}
console.log();

// Scores: choice confidence vs mean token probability, over every proposal that has both.
const curves: { label: string; outcomes: ScoredOutcome[] }[] = [];
console.log(
  "| backend | score | proposals | AUROC (exactly right) | ECE | best coverage at ≥ 95 % precision | at ≥ 90 % |",
);
console.log("|---|---|---|---|---|---|---|");
for (const { backend, records } of runs) {
  const rs = records.filter((r) => r.outcome === "proposed" && r.confidence !== null);
  if (rs.length === 0) continue;
  const scored = (pick: (r: EvalRecord) => number | undefined | null) =>
    rs.filter((r) => typeof pick(r) === "number").map((r) => ({ score: pick(r)!, correct: r.correct }));
  const withBoth = rs.filter((r) => r.meanTokenProbability !== undefined);
  for (const [label, outcomes] of [
    ["choice confidence", scored((r) => r.confidence)],
    ["mean token probability", scored((r) => r.meanTokenProbability)],
    ["calibrated (out of fold)", withBoth.length >= 10 ? outOfFoldCalibratedScores(withBoth) : []],
  ] as const) {
    if (outcomes.length === 0) continue;
    // A curve over a handful of proposals is noise: plotted from 20 on (the table shows every run).
    if (outcomes.length >= 20) curves.push({ label: `${backend}: ${label}`, outcomes });
    const at = (target: number) => {
      const b = chooseThreshold(outcomes, target);
      return b ? `${(b.coverage * 100).toFixed(0)} % (≥ ${b.threshold.toFixed(3)})` : "none";
    };
    console.log(
      `| ${backend} | ${label} | ${outcomes.length} | ${f2(auroc(outcomes))} | ${f2(expectedCalibrationError(outcomes))} | ${at(0.95)} | ${at(0.9)} |`,
    );
  }
}
if (values.svg) {
  writeFileSync(
    values.svg,
    riskCoverageSvg(curves.map((c) => ({ label: c.label, points: riskCoverage(c.outcomes) }))),
  );
  console.error(`wrote ${values.svg}`);
}
