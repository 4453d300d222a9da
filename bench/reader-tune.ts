// Issue 39 item 6, the eighth recipe (bench/results/flywheel-sealed-13/protocol.md): tunes the alert node's reader
// with deputy's own trainer (`tuneReader`, as `deputy learn --tune` runs it: a LoRA adapter and a label head on the
// 0.5B, folded into a GGUF copy with the head recorded beside it) on one condition's decisions.
//
//   node --import tsx bench/reader-tune.ts a|b [--out DIR] [--base GGUF] [--seed 1]
//
// (a) after the team's first 90 decisions: escalations.jsonl and the four generated sets the earlier recipes train
// on (train, styled, sources, notices), in that order; (b) after all development decisions: the sets before holdout13, in
// their order. Writes DIR/alert-a.reader-SHA12.gguf (or -b) and its record; prints the path.
import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadAlertExamples, root } from "./alert-data.js";
import { setsBefore } from "./flywheel-sealed-measure.js";
import { tuneReader } from "../dist/distill/tune-reader.js";

/** What each condition's reader learns from, in order. */
export const READER_SETS = {
  a: ["escalations", "train", "styled", "sources", "notices"],
  b: setsBefore("holdout13"),
} as const;

const { values, positionals } = parseArgs({
  options: {
    out: { type: "string", default: `${root}.deputy/reader` },
    base: {
      type: "string",
      default: `${homedir()}/.cache/deputy/models/qwen2.5-coder-0.5b-instruct/0.9.0/qwen2.5-coder-0.5b-instruct.gguf`,
    },
    seed: { type: "string", default: "1" },
    "max-steps": { type: "string" },
  },
  allowPositionals: true,
});
const condition = positionals[0];
if (condition !== "a" && condition !== "b") {
  process.stderr.write("usage: bench/reader-tune.ts a|b [--out DIR] [--base GGUF] [--seed 1]\n");
  process.exit(2);
}
const examples = READER_SETS[condition].flatMap((s) => loadAlertExamples(s));
process.stderr.write(
  `(${condition}) ${examples.length} examples from ${READER_SETS[condition].join(", ")}\n`,
);
const tuned = await tuneReader({
  base: values.base,
  examples,
  dir: resolve(values.out),
  stem: `alert-${condition}`,
  seed: Number(values.seed),
  ...(values["max-steps"] !== undefined && { maxSteps: Number(values["max-steps"]) }),
  onEstimate: (e) =>
    process.stderr.write(
      `${e.steps} steps at ${e.secondsPerStep.toFixed(1)} s a step: about ${(e.seconds / 60).toFixed(0)} min\n`,
    ),
  onStep: (step, steps, loss) => {
    if (step % 10 === 0 || step === steps)
      process.stderr.write(`step ${step}/${steps} loss ${loss.toFixed(3)}\n`);
  },
});
process.stderr.write(
  `${tuned.existed ? "already there" : "wrote"} ${tuned.path} in ${(tuned.seconds / 60).toFixed(1)} min; head check ${JSON.stringify(tuned.headCheck)}\n`,
);
process.stdout.write(tuned.path + "\n");
