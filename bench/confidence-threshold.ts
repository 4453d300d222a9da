/**
 * Item 4 of issue 13 by the protocol in bench/results/qwen2.5-coder-0.5b/protocol.md: does a threshold chosen
 * on the fit half give ≥ 95 % precision on the report half, and at what coverage? Reads labelled proposals with
 * per-token probabilities (bench/quality-run.ts --tokens), splits them as bench/confidence-methods.ts does, and
 *
 * 1. thresholds deputy's answer confidence on the fit half;
 * 2. with `--calibration FILE` (`deputy calibrate --confidence-method answer [--with-context]` on the records
 *    `--write-fit FILE` wrote; repeatable), applies that file's `recommendedMinConfidence`;
 * 3. compares logistic calibrations on proposal-time features by out-of-fold AUROC on the fit half, and scores
 *    the chosen one once on the report half.
 *
 *   node --import tsx bench/confidence-threshold.ts RECORDS.jsonl [--write-fit FIT.jsonl] [--calibration FILE] \
 *     [--declined IDS.txt] [--selfcheck SCORES.jsonl]
 *
 * Records without `tokens` (runs without `--tokens`) are read as they are: `confidence` is then the answer
 * confidence and F3 (it needs the choice confidence) is left out. `--declined` (one case id a line, e.g.
 * quality-relevance-fit.ts --write-declined) takes the cases a relevance rule declines out of the proposals: a
 * decline is never an accepted call, so coverage is still counted over every case of the half.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { answerConfidenceOfTokens } from "../src/confidence/answer-confidence.js";
import { calibratedConfidence, readDelegateCalibration } from "../src/confidence/delegate-calibration.js";
import { verbatimShare } from "../src/confidence/proposal-context.js";
import { Calibrator } from "../src/confidence/calibrator.js";
import { bfclQuestion } from "../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import type { EvalRecord } from "../src/eval/evaluate-case.js";
import {
  auroc,
  expectedCalibrationError,
  riskCoverage,
  type ScoredOutcome,
  wilsonInterval,
} from "../src/confidence/score-metrics.js";
import { chooseThreshold } from "../src/confidence/threshold.js";
import { riskCoverageSvg } from "./risk-coverage-svg.js";
import { BFCL_DIR } from "../test/bfcl-fixtures.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    "write-fit": { type: "string" },
    calibration: { type: "string", multiple: true },
    target: { type: "string", default: "0.95" },
    declined: { type: "string" },
    // Self-check scores (bench/quality-selfcheck.ts): the answer confidence becomes confidence × S
    // (protocol-selfcheck.md, item 3); a record without one keeps its confidence.
    selfcheck: { type: "string" },
    // A risk–coverage picture of the report half: answer confidence and mean token probability, over every
    // proposal and (with --declined) behind the relevance rule.
    svg: { type: "string" },
  },
});
const target = Number(values.target);
type Row = EvalRecord & { tokens?: { piece: string; grammar: number; raw?: number }[] };
const all = readFileSync(positionals[0] ?? "bench/results/qwen2.5-coder-0.5b/local-tokens.jsonl", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => r.outcome === "proposed" && r.confidence !== null);
if (values.selfcheck) {
  const checks = new Map(
    readFileSync(values.selfcheck, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; selfCheck: number })
      .map((c) => [c.id, c.selfCheck] as const),
  );
  for (const r of all) r.confidence = r.confidence! * (checks.get(r.id) ?? 1);
}
const withTokens = all.some((r) => (r.tokens?.length ?? 0) > 0);
const declined = new Set(
  values.declined ? readFileSync(values.declined, "utf8").split("\n").filter(Boolean) : [],
);
const rows = all.filter((r) => (withTokens ? (r.tokens?.length ?? 0) > 0 : true) && !declined.has(r.id));
/** Cases of each half, declined ones included: the denominator of coverage. */
const halfSize = (isFit: boolean) => all.filter((r) => fit(r.id) === isFit).length;
const questions = new Map(
  bfclCases(loadBfclSuite(BFCL_DIR)).map((c) => [c.sample.id, bfclQuestion(c.sample)]),
);

/** FNV-1a, as bench/confidence-methods.ts: even = fit, odd = report. */
function fit(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 2 === 0;
}
const logit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};
const answer = (r: Row) =>
  r.tokens
    ? answerConfidenceOfTokens(
        r.tokens.map((t) => t.piece),
        r.tokens.map((t) => t.raw ?? 0),
      )
    : r.confidence!;

const verbatim = (r: Row) => verbatimShare(questions.get(r.id) ?? "", r.arguments);

const fitRows = rows.filter((r) => fit(r.id));
const reportRows = rows.filter((r) => !fit(r.id));
const count = (rs: Row[]) => `${rs.length} (${rs.filter((r) => r.correct).length} right)`;
console.log(
  `fit half ${count(fitRows)}; report half ${count(reportRows)}; target precision ${target}` +
    (declined.size ? `; ${all.length - rows.length} cases declined before the gate (--declined)` : ""),
);

/** What a threshold does on the report half, with a Wilson interval for the precision. */
function onReport(name: string, threshold: number | undefined, report: ScoredOutcome[]): void {
  const accepted = threshold === undefined ? [] : report.filter((o) => o.score >= threshold);
  const right = accepted.filter((o) => o.correct).length;
  const cases = halfSize(false);
  const [lo, hi] = wilsonInterval(right, accepted.length);
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  console.log(
    `| ${name} | ${threshold === undefined ? "none" : threshold.toPrecision(3)} | ${f2(auroc(report))} | ${f2(
      expectedCalibrationError(report),
    )} | ${pct(accepted.length / cases)} (${accepted.length}/${cases}) | ${
      accepted.length ? `${pct(right / accepted.length)} (${right}/${accepted.length})` : "–"
    } | ${accepted.length ? `${pct(lo)}–${pct(hi)}` : "–"} |`,
  );
}
const f2 = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(2));
console.log();
console.log(
  "| method | threshold (fit half) | AUROC report | ECE report | report coverage | report precision | 95 % Wilson |",
);
console.log("|---|---|---|---|---|---|---|");

// 1. deputy's answer confidence, thresholded on the fit half.
const scored = (rs: Row[], score: (r: Row) => number) =>
  rs.map((r) => ({ score: score(r), correct: r.correct }));
onReport(
  "answer confidence",
  chooseThreshold(scored(fitRows, answer), target)?.threshold,
  scored(reportRows, answer),
);

// 2. A `deputy calibrate` file fitted on the fit half (records written by --write-fit).
const asAnswer = (r: Row) => ({ ...r, confidence: answer(r), verbatimShare: verbatim(r), tokens: undefined });
if (values["write-fit"]) {
  writeFileSync(values["write-fit"], fitRows.map((r) => JSON.stringify(asAnswer(r))).join("\n") + "\n");
  console.error(`wrote ${fitRows.length} fit-half records to ${values["write-fit"]}`);
}
for (const path of values.calibration ?? []) {
  const file = readDelegateCalibration(path);
  const report = reportRows.map((r) => ({
    score: calibratedConfidence(file, asAnswer(r), { tools: r.tools, verbatimShare: verbatim(r) }) ?? 0,
    correct: r.correct,
  }));
  const inputs = file.calibrator.inputs.length;
  onReport(
    `deputy calibrate${inputs > 2 ? " --with-context" : ""} (${file.fittedOn} fit-half proposals)`,
    file.recommendedMinConfidence,
    report,
  );
}

// 3. Logistic calibrations on proposal-time features, chosen by out-of-fold AUROC on the fit half.
const features: Record<string, (r: Row) => number[]> = {
  "F1 answer + mean raw": (r) => [logit(answer(r)), logit(r.meanTokenProbability ?? 0)],
  "F2 F1 + tools + verbatim": (r) => [
    logit(answer(r)),
    logit(r.meanTokenProbability ?? 0),
    Math.log(r.tools),
    verbatim(r),
  ],
  ...(withTokens
    ? {
        "F3 F2 + choice": (r: Row) => [
          logit(answer(r)),
          logit(r.meanTokenProbability ?? 0),
          Math.log(r.tools),
          verbatim(r),
          logit(r.confidence!),
        ],
      }
    : {}),
};
const fitOf = (rs: Row[], inputs: (r: Row) => number[]) =>
  Calibrator.fit(
    rs.map((r) => ({ inputs: inputs(r), correct: r.correct })),
    0.01,
    inputs(rs[0]!).map((_, i) => `x${i}`),
  );
const outOfFold = (inputs: (r: Row) => number[], folds = 5): ScoredOutcome[] =>
  Array.from({ length: folds }, (_, k) => {
    const model = fitOf(
      fitRows.filter((_, i) => i % folds !== k),
      inputs,
    );
    return fitRows
      .filter((_, i) => i % folds === k)
      .map((r) => ({ score: model.confidence(inputs(r)), correct: r.correct }));
  }).flat();
const candidates = Object.entries(features).map(([name, inputs]) => {
  const oof = outOfFold(inputs);
  return { name, inputs, oof, auroc: auroc(oof) ?? 0, size: inputs(fitRows[0]!).length };
});
for (const c of candidates) {
  const t = chooseThreshold(c.oof, target);
  console.error(
    `fit half, out of fold: ${c.name}: AUROC ${c.auroc.toFixed(3)}, ECE ${expectedCalibrationError(c.oof).toFixed(3)}, ` +
      (t
        ? `≥ ${target * 100} % at ${(100 * t.coverage).toFixed(0)} % coverage (threshold ${t.threshold.toFixed(3)})`
        : "no threshold reaches the target"),
  );
}
const best = Math.max(...candidates.map((c) => c.auroc));
const chosen = candidates.filter((c) => c.auroc >= best - 0.01).reduce((a, b) => (b.size < a.size ? b : a));
console.error(`chosen on the fit half: ${chosen.name}`);
const model = fitOf(fitRows, chosen.inputs);
onReport(
  `calibrated ${chosen.name}`,
  chooseThreshold(chosen.oof, target)?.threshold,
  reportRows.map((r) => ({ score: model.confidence(chosen.inputs(r)), correct: r.correct })),
);

if (values.svg) {
  const plain = all.filter((r) => !fit(r.id));
  const cases = halfSize(false);
  // Coverage over every case of the report half, so the curves behind the rule start where its declines leave.
  const curve = (label: string, rs: Row[], score: (r: Row) => number) => ({
    label,
    points: riskCoverage(scored(rs, score)).map((p) => ({ ...p, coverage: p.accepted / cases })),
  });
  const score = values.selfcheck ? "answer confidence × self-check" : "answer confidence";
  const curves = [
    curve(`every proposal: ${score}`, plain, answer),
    curve("every proposal: mean token probability", plain, (r) => r.meanTokenProbability ?? 0),
    ...(declined.size
      ? [
          curve(`behind the relevance rule: ${score}`, reportRows, answer),
          curve(
            "behind the relevance rule: mean token probability",
            reportRows,
            (r) => r.meanTokenProbability ?? 0,
          ),
        ]
      : []),
  ];
  writeFileSync(values.svg, riskCoverageSvg(curves));
  console.error(`wrote ${values.svg}`);
}
