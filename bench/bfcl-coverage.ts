/**
 * Coverage at a target precision on BFCL with no team decisions (issue 39 item 6, the 1.5B; protocol in
 * bench/results/bfcl-coverage/protocol.md): the calls the model's catalogued settings let through are ranked by
 * answer confidence × self-check score × relevance score (the three signals a proposal carries); the threshold
 * is the lowest score whose calls at or above it reach `--precision` on the `--fit-*` records (most coverage),
 * and the `--report-*` records are scored with it: coverage = calls accepted ÷ all cases (questions no tool fits
 * included), precision = exact calls ÷ accepted, with its 95 % Wilson interval.
 *
 *   node --import tsx bench/bfcl-coverage.ts --fit-records shared.jsonl --fit-relevance enc.jsonl \
 *     --fit-selfcheck sc.jsonl [--report-records … --report-relevance … --report-selfcheck …] [--precision 0.95]
 *     [--rematch] [--selfcheck-below 0.6]
 *
 * `--rematch` judges each recorded call again with today's `bfclAstMatch` instead of the `correct` the run wrote
 * (a matcher fixed after a run: the figures it prints are then "after the fact"). `--rematch-fit` does so for the
 * fit records only: a report run recorded with today's matcher is then scored once, with the threshold today's
 * matcher gives (bench/results/bfcl-coverage/protocol-holdout-d.md).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { groundedCall } from "../src/confidence/proposal-context.js";
import { wilsonInterval } from "../src/confidence/score-metrics.js";
import { bfclQuestion } from "../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite, type BfclCase } from "../src/eval/bfcl-suite.js";
import { judgeBfclProposal, type EvalRecord } from "../src/eval/evaluate-case.js";

const { values } = parseArgs({
  options: {
    "fit-records": { type: "string" },
    "fit-relevance": { type: "string" },
    "fit-selfcheck": { type: "string" },
    "report-records": { type: "string" },
    "report-relevance": { type: "string" },
    "report-selfcheck": { type: "string" },
    "report-suite": { type: "string" },
    "fit-suite": { type: "string", default: "test/fixtures/bfcl" },
    precision: { type: "string", default: "0.95" },
    rematch: { type: "boolean", default: false },
    "rematch-fit": { type: "boolean", default: false },
    "selfcheck-below": { type: "string", default: "0.6" },
  },
});
const target = Number(values.precision);
const selfCheckBelow = Number(values["selfcheck-below"]);
const jsonl = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

interface Scored {
  accepted: boolean;
  correct: boolean;
  score: number;
}

/**
 * Whether a recorded call is right: the run's own `correct`, or with `--rematch` judged again as a run judges it
 * today (`judgeBfclProposal`).
 */
function rightBy(cases: Map<string, BfclCase>, rematch: boolean): (r: EvalRecord) => boolean {
  if (!rematch) return (r) => r.correct;
  return (r) => {
    const c = cases.get(r.id);
    return (
      c !== undefined &&
      r.name != null &&
      judgeBfclProposal(c, { name: r.name, arguments: r.arguments ?? {} }).correct
    );
  };
}

/**
 * The 1.5B's catalogued settings on one record (`selfcheck=S,relevance=encoder:0.262/0.6@0.2,sure=0.5`, S from
 * `--selfcheck-below`: 0.6, the catalogue's when the committed reports were measured; 0.55 since d53d8ba).
 */
function score(
  records: string,
  relevance: string,
  selfcheck: string,
  suite: string,
  rematch: boolean,
): Scored[] {
  const rel = new Map(jsonl<{ id: string; score: number }>(relevance).map((r) => [r.id, r.score]));
  const sc = new Map(jsonl<{ id: string; selfCheck: number }>(selfcheck).map((r) => [r.id, r.selfCheck]));
  const cases = new Map(bfclCases(loadBfclSuite(suite, { limit: 100000 })).map((c) => [c.sample.id, c]));
  const right = rightBy(cases, rematch);
  const seen = new Set<string>();
  return jsonl<EvalRecord>(records).flatMap((r) => {
    if (seen.has(r.id) || !rel.has(r.id)) return [];
    seen.add(r.id);
    const e = rel.get(r.id)!;
    const s = sc.get(r.id);
    const conf = r.confidence ?? 0;
    const call = r.outcome === "proposed" && r.name != null;
    const sample = cases.get(r.id)?.sample;
    const grounded = call && groundedCall(sample ? bfclQuestion(sample) : "", r.arguments);
    let accepted = call && !(s !== undefined && s < selfCheckBelow);
    if (accepted && e < 0.262) accepted = grounded || conf >= 0.5;
    else if (accepted && e < 0.6 && conf < 0.2 && !grounded) accepted = false;
    const irrelevant = r.category.includes("irrelevance");
    return [
      { accepted, correct: accepted && !irrelevant && right(r), score: conf * (s ?? 0) * Math.max(0, e) },
    ];
  });
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
function at(rows: Scored[], t: number) {
  const acc = rows.filter((r) => r.accepted && r.score >= t);
  const k = acc.filter((r) => r.correct).length;
  const [lo, hi] = wilsonInterval(k, acc.length);
  return { n: rows.length, accepted: acc.length, right: k, lo, hi };
}
const line = (label: string, x: ReturnType<typeof at>) =>
  `| ${label} | ${x.n} | ${x.accepted} | ${pct(x.accepted / x.n)} | ${x.accepted ? pct(x.right / x.accepted) : "–"} | ${x.accepted ? `${pct(x.lo)}–${pct(x.hi)}` : "–"} |`;

const fit = score(
  values["fit-records"]!,
  values["fit-relevance"]!,
  values["fit-selfcheck"]!,
  values["fit-suite"]!,
  values.rematch || values["rematch-fit"],
);
// The lowest threshold whose accepted calls at or above it reach the target: the most coverage.
const ranked = fit.filter((r) => r.accepted).sort((a, b) => b.score - a.score);
let threshold = Infinity;
let right = 0;
ranked.forEach((r, i) => {
  right += r.correct ? 1 : 0;
  if (right / (i + 1) >= target) threshold = r.score;
});
console.log(
  `threshold on the fit records: ${threshold} (answer × self-check × relevance; precision ≥ ${target})`,
);
console.log("| set | cases | accepted | coverage | precision | 95 % Wilson |\n|---|---|---|---|---|---|");
console.log(line("fit (in-sample)", at(fit, threshold)));
console.log(line("fit, every call the settings let through", at(fit, -Infinity)));
if (values["report-records"]) {
  const report = score(
    values["report-records"],
    values["report-relevance"]!,
    values["report-selfcheck"]!,
    values["report-suite"]!,
    values.rematch,
  );
  console.log(
    line(
      values.rematch ? "report (rematched: after the fact)" : "report (scored once)",
      at(report, threshold),
    ),
  );
  console.log(line("report, every call the settings let through", at(report, -Infinity)));
}
