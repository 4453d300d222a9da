import { statSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { readTraces } from "../../traces/read-traces.js";
import { saveModelFile } from "../../delegate/distilled/model-file.js";
import { trainDistilled } from "../../delegate/distilled/train-distilled.js";
import { examplesFromTraces, type TrainingExample } from "../../delegate/distilled/training-examples.js";
// Registers `--delegate distilled=MODEL.json` for the other commands.
import "../../delegate/distilled/register-spec.js";
import type { CliContext } from "../cli-context.js";

interface DistillFlags {
  node: string;
  out: string;
  targetPrecision: string;
  holdout?: string[];
  heldOutShare: string;
  seed: string;
  json?: boolean;
}

function fraction(option: string, raw: string, open = false): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1 || (!open && n === 0))
    throw new InvalidOptionError(
      option,
      open ? "a number from 0 to 1" : "a number above 0 and at most 1",
      raw,
    );
  return n;
}

function readExamples(files: readonly string[], node: string) {
  let invalidLines = 0;
  const traces = files.flatMap((file) => {
    const read = readTraces(file);
    invalidLines += read.invalidLines;
    return read.traces;
  });
  return { ...examplesFromTraces(traces, node), invalidLines, traces: traces.length };
}

const percent = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);

/** `deputy distill TRACES… --node ID --out MODEL.json [--target-precision 0.98] [--holdout FILE…]`. */
export function registerDistill(program: Command, ctx: CliContext): void {
  program
    .command("distill <traces...>")
    .description(
      "train a distilled delegate for one node from its traces (accepted calls, teacher answers, resolutions)",
    )
    .requiredOption("--node <id>", "the plan node whose calls to learn")
    .requiredOption("--out <file>", "where to write the model (JSON)")
    .option("--target-precision <p>", "precision the recommended min_confidence aims for", "0.98")
    .option(
      "--holdout <files...>",
      "trace files worded like the traffic to come, instead of a random share of TRACES: half tune the threshold, half are measured",
    )
    .option(
      "--held-out-share <p>",
      "share of TRACES held out for measuring when --holdout is not given",
      "0.2",
    )
    .option("--seed <n>", "seed of splits and training order", "1")
    .option("--json", "print the measurements as JSON")
    .action((files: string[], flags: DistillFlags) => {
      const targetPrecision = fraction("--target-precision", flags.targetPrecision);
      const heldOutShare = fraction("--held-out-share", flags.heldOutShare, true);
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed)) throw new InvalidOptionError("--seed", "an integer", flags.seed);
      const selection = readExamples(files, flags.node);
      if (selection.examples.length < 2)
        throw new InvalidOptionError(
          "TRACES",
          `trace files with at least 2 labelled calls of node "${flags.node}"`,
          `${selection.examples.length} in ${selection.traces} trace(s)`,
        );
      let heldOut: TrainingExample[] | undefined;
      if (flags.holdout) heldOut = readExamples(flags.holdout, flags.node).examples;
      const started = performance.now();
      const result = trainDistilled(selection.examples, {
        node: flags.node,
        targetPrecision,
        heldOutShare,
        seed,
        ...(heldOut ? { heldOut } : {}),
      });
      const seconds = (performance.now() - started) / 1000;
      saveModelFile(flags.out, result.model);
      const bySource: Record<string, number> = {};
      for (const e of selection.examples) bySource[e.source] = (bySource[e.source] ?? 0) + 1;
      const report = {
        node: flags.node,
        model: flags.out,
        examples: selection.examples.length,
        bySource,
        skipped: { ...selection.skipped, invalidLines: selection.invalidLines },
        trainingExamples: result.trainingExamples,
        heldOutExamples: result.heldOutExamples,
        tuningExamples: result.tuningExamples,
        trainSeconds: Number(seconds.toFixed(3)),
        heldOutAccuracy: result.heldOutAccuracy,
        heldOut: result.heldOutTable,
        outOfFold: result.calibrationTable,
        targetPrecision,
        recommendedMinConfidence: result.recommendedMinConfidence,
      };
      if (flags.json) {
        ctx.stdout(JSON.stringify(report, null, 2) + "\n");
        return;
      }
      const left = Object.entries(report.skipped)
        .filter(([, n]) => n > 0)
        .map(([why, n]) => `${n} ${why}`)
        .join(", ");
      const sources = Object.entries(bySource)
        .map(([s, n]) => `${n} ${s}`)
        .join(", ");
      const lines = [
        `node "${flags.node}": ${selection.examples.length} labelled example(s) (${sources})${left ? `; left out: ${left}` : ""}`,
        `trained on ${result.trainingExamples}${result.tuningExamples ? `, tuned on ${result.tuningExamples} held out` : ""}, measured on ${result.heldOutExamples} held out${flags.holdout ? ` (${flags.holdout.join(", ")})` : ""}, in ${seconds.toFixed(2)} s`,
        `held-out exact-match accuracy: ${percent(result.heldOutAccuracy)}`,
        "",
        "min_confidence  coverage  precision   (held out)",
        ...result.heldOutTable.map(
          (t) =>
            `${t.threshold.toFixed(3).padEnd(16)}${percent(t.coverage).padStart(8)}  ${percent(t.precision).padStart(9)}${t.threshold === result.recommendedMinConfidence ? "   ← recommended" : ""}`,
        ),
        "",
        result.recommendedMinConfidence >= 1
          ? `no threshold reached precision ${percent(targetPrecision)} on out-of-fold predictions: the model should decide nothing alone (min_confidence 1); add traces`
          : `recommended min_confidence: ${result.recommendedMinConfidence} (the smallest reaching precision ${percent(targetPrecision)} on ${result.tuningExamples ? "the tuning half of the held-out set" : "out-of-fold predictions"})`,
        `model written to ${flags.out} (${Math.round(statSync(flags.out).size / 1024)} KB)`,
      ];
      ctx.stdout(lines.join("\n") + "\n");
    });
}
