// Development figures for the seventh recipe (bench/results/flywheel-sealed-12/protocol.md): deputy's distilled
// level trained by the alert recipe on a tuned GGUF, scored in process on development sets the adapter did not
// learn from — per set and pooled, at the model's own min_confidence and at fixed thresholds.
//
//   node --import tsx bench/lora-dev.ts TUNED.gguf a|b OUTPREFIX SUITE.jsonl...
//
// (a) trains on escalations.jsonl, (b) on every development set through holdout11 (as bench/lora-sealed.ts).
// Writes OUTPREFIX.model.json and OUTPREFIX.dev.jsonl (one line per case: set, confidence, exact, eligible).
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { memoized } from "./alert-data.js";
import { setsBefore, trainAlertCondition } from "./flywheel-sealed-measure.js";
import { DistilledDelegate, GgufTextEncoder, loadModelFile } from "../dist/distill/index.js";
import { evaluateChain, readDecisionSuite, type ChainAnswer } from "../dist/eval/index.js";

const [gguf, condition, prefix, ...suites] = process.argv.slice(2);
if (!gguf || (condition !== "a" && condition !== "b") || !prefix || suites.length === 0) {
  process.stderr.write("usage: bench/lora-dev.ts TUNED.gguf a|b OUTPREFIX SUITE.jsonl...\n");
  process.exit(2);
}
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);
const real = await GgufTextEncoder.open(gguf);
const encoder = memoized(real);
const trained = await trainAlertCondition(
  condition === "a" ? ["escalations"] : setsBefore("holdout12"),
  prefix,
  encoder,
);
process.stdout.write(`trained in ${seconds()} s; min_confidence ${trained.minConfidence}\n`);
const model = loadModelFile(trained.modelFile);
const CALL_VERDICTS = new Set(["accepted", "low_confidence", "unscored"]);
const THRESHOLDS = [model.recommendedMinConfidence, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99];
const rows: { set: string; confidence: number; exact: boolean; eligible: boolean }[] = [];
for (const file of suites) {
  const suite = readDecisionSuite(file);
  const delegate = new DistilledDelegate({ model, encoder });
  const answers: ChainAnswer[] = [];
  try {
    await evaluateChain([{ delegate, minConfidence: model.recommendedMinConfidence }], suite.cases, {
      onProposal: (a) => answers.push(a),
    });
  } finally {
    await delegate.close();
  }
  const set = basename(file, ".jsonl");
  for (const a of answers)
    rows.push({
      set,
      confidence: a.confidence ?? 0,
      exact: a.correct,
      eligible: CALL_VERDICTS.has(a.verdict) && a.proposal !== undefined && a.proposal.name !== null,
    });
}
await real.close();
writeFileSync(`${prefix}.dev.jsonl`, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

const pct = (x: number) => `${(100 * x).toFixed(1)}`;
const line = (name: string, cases: typeof rows) => {
  const cells = THRESHOLDS.map((t) => {
    const decided = cases.filter((c) => c.eligible && c.confidence >= t);
    const right = decided.filter((c) => c.exact).length;
    return `${pct(decided.length / cases.length)} at ${pct(right / Math.max(1, decided.length))} (${decided.length - right})`;
  });
  const exact = cases.filter((c) => c.exact).length / cases.length;
  return `| ${name} | ${cases.length} | ${pct(exact)} | ${cells.join(" | ")} |`;
};
process.stdout.write(
  [
    `| set | n | exact | ${THRESHOLDS.map((t, i) => (i === 0 ? `own ${t}` : `≥ ${t}`)).join(" | ")} |`,
    `|---|---|---|${THRESHOLDS.map(() => "---").join("|")}|`,
    ...[...new Set(rows.map((r) => r.set))].map((s) =>
      line(
        s,
        rows.filter((r) => r.set === s),
      ),
    ),
    line("pooled", rows),
  ].join("\n") + `\n(${seconds()} s)\n`,
);
