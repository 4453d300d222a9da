// Development figures for the seventh recipe (bench/results/flywheel-sealed-12/protocol.md): deputy's distilled
// level trained by the alert recipe on a tuned GGUF, scored in process on development sets the adapter did not
// learn from — per set and pooled, at the model's own min_confidence and at fixed thresholds.
//
//   node --import tsx bench/lora-dev.ts TUNED.gguf a|b OUTPREFIX SUITE.jsonl...
//
// (a) trains on escalations.jsonl, (b) on every development set through holdout11 (as bench/lora-sealed.ts).
// Writes OUTPREFIX.model.json and OUTPREFIX.dev.jsonl (one line per case: set, confidence, exact, eligible).
import { writeFileSync } from "node:fs";
import { memoized } from "./alert-data.js";
import { setsBefore, trainAlertCondition } from "./flywheel-sealed-measure.js";
import { devTable, scoreSuites } from "./sealed-run.js";
import { GgufTextEncoder, loadModelFile } from "../dist/distill/index.js";

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
const THRESHOLDS = [model.recommendedMinConfidence, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99];
const rows = await scoreSuites(model, encoder, suites, model.recommendedMinConfidence);
await real.close();
writeFileSync(`${prefix}.dev.jsonl`, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
process.stdout.write(
  devTable(rows, THRESHOLDS, (t, i) => (i === 0 ? `own ${t}` : `≥ ${t}`)) + `\n(${seconds()} s)\n`,
);
