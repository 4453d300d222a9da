// Issue 39 item 6, the eighth recipe (bench/results/flywheel-sealed-13/protocol.md): trains deputy's distilled level
// on a tuned reader (bench/reader-tune.ts) as `deputy distill --encoder gguf=READER.gguf` trains it — the reader's
// head, recorded beside it, becomes the level's class decision (the run stops if it does not) — and, with --dev,
// scores development sets the reader and the level never trained on at the protocol's grid of thresholds.
//
//   node --import tsx bench/reader-level.ts a|b READER.gguf OUTPREFIX [SUITE.jsonl...]
//   DECISIONS_ONLY=1 node --import tsx bench/reader-level.ts …   # without the four generated sets
//
// The level trains on the condition's decisions ((a) escalations.jsonl, (b) the sets before holdout13) and the four generated
// sets (train, styled, sources, notices), with heldout.jsonl to tune on, and no counterfactual copies (they were
// there for the class decision, which the head now makes). The level's own heads copy the rest (alert_id, summary,
// title): trained on the 90 decisions alone they cut multi-sentence summaries short (development, holdout5–12:
// exact calls 73.9 % against 88.8 % with the generated sets, labels right 91.0 % either way). Writes
// OUTPREFIX.model.json (its sha256 printed) and, with suites, OUTPREFIX.dev.jsonl (one line per case: set,
// confidence, exact, label right, eligible) and a table per set: share decided / precision (wrong calls).
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { memoized } from "./alert-data.js";
import { setsBefore, trainAlertCondition } from "./flywheel-sealed-measure.js";
import { devTable, scoreSuites } from "./sealed-run.js";
import { GgufTextEncoder, loadModelFile } from "../dist/distill/index.js";

/** The eighth recipe's level: the condition's decisions and the generated sets, no counterfactual copies. */
export const READER_LEVEL_RECIPE = { counterfactualKinds: [] as string[] };
/** The sets each condition's level trains on. */
export const LEVEL_SETS = { a: ["escalations"], b: setsBefore("holdout13") } as const;
/** The protocol's grid of thresholds (besides the model's own min_confidence). */
export const GRID = [0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99];

const [condition, reader, prefix, ...suites] = process.argv.slice(2);
if ((condition !== "a" && condition !== "b") || !reader || !prefix) {
  process.stderr.write("usage: bench/reader-level.ts a|b READER.gguf OUTPREFIX [SUITE.jsonl...]\n");
  process.exit(2);
}
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);
const real = await GgufTextEncoder.open(reader);
const encoder = memoized(real);
const recipe =
  process.env.DECISIONS_ONLY === "1"
    ? { ...READER_LEVEL_RECIPE, generated: [] as string[] }
    : READER_LEVEL_RECIPE;
const trained = await trainAlertCondition(LEVEL_SETS[condition], prefix, encoder, recipe);
const model = loadModelFile(trained.modelFile);
if (!model.readerHead) {
  process.stderr.write(`bench:reader-level: the level did not take ${reader}'s head\n`);
  process.exit(1);
}
const sha = createHash("sha256").update(readFileSync(trained.modelFile)).digest("hex");
process.stdout.write(
  `trained in ${seconds()} s on ${JSON.stringify(trained.counts)}: ${trained.modelFile} sha256 ${sha}; its own min_confidence ${trained.minConfidence}; the head has ${model.readerHead.labels.length} labels\n`,
);
const head = model.readerHead;
const labelOf = (call: { name: string | null; arguments?: Record<string, unknown> } | null | undefined) => {
  if (!call) return "";
  const keys = new Set(
    head.labels.filter((l) => l.name === call.name).flatMap((l) => Object.keys(l.arguments)),
  );
  const args = Object.entries(call.arguments ?? {})
    .filter(([k]) => keys.has(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([call.name, args]);
};
const rows = await scoreSuites(model, encoder, suites, 0, (a, call) => ({
  label: labelOf(a.proposal) === labelOf(call as never),
}));
await real.close();
if (suites.length === 0) process.exit(0);
writeFileSync(`${prefix}.dev.jsonl`, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
const thresholds = [...new Set([model.recommendedMinConfidence, ...GRID])].sort((a, b) => a - b);
process.stdout.write(
  devTable(
    rows,
    thresholds,
    (t) => (t === model.recommendedMinConfidence ? `own ${t}` : `≥ ${t}`),
    { label: (cases) => cases.filter((c) => (c as { label?: boolean }).label).length / cases.length },
    (share, precision, wrong) => `${share} / ${precision} (${wrong})`,
  ) + `\n(${seconds()} s)\n`,
);
