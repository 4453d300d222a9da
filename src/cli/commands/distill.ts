import { numberOption } from "../number-option.js";
import { statSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { canonicalJson } from "../../runtime/canonical-json.js";
import { readTraces } from "../../traces/read-traces.js";
import { saveModelFile } from "../../distill/model-file.js";
import { DEFAULT_CONFIDENCE_FLOOR } from "../../distill/confidence-floor.js";
import { trainDistilled, type TrainDistilledResult } from "../../distill/train-distilled.js";
import { examplesFromTraces, type TrainingExample } from "../../distill/training-examples.js";
import { GgufTextEncoder } from "../../distill/gguf-text-encoder.js";
import { measureModel, type Measurement } from "../../distill/measure-model.js";
import { parseEncoderSpec, type TextEncoder } from "../../distill/text-encoder.js";
import { encoderTrainingTexts, trainDistilledWithEncoder } from "../../distill/train-with-encoder.js";
import { encoderInput } from "../../distill/encoder-input.js";
import type { EmbeddedAhead } from "../../distill/embed-ahead.js";
import { sourceDateClock } from "../source-date-clock.js";
import { embeddingJson, embedWithEstimate, parseMaxMinutes } from "./embedding-estimate.js";
import { storeTraces, type StoreSummary } from "./distill-store.js";
import type { DelegateTrace } from "../../traces/trace.js";
import type { CliContext } from "../cli-context.js";

interface DistillFlags {
  node: string;
  out: string;
  targetPrecision: string;
  confidenceFloor: string;
  holdout?: string[];
  heldOutShare: string;
  seed: string;
  json?: boolean;
  encoder?: string;
  store?: string;
  tools?: string;
  measure?: string[];
  resolved?: string[];
  maxMinutes?: string;
}

function fraction(option: string, raw: string, open = false): number {
  return open
    ? numberOption(option, raw, (n) => n >= 0 && n <= 1, "a number from 0 to 1")
    : numberOption(option, raw, (n) => n > 0 && n <= 1, "a number above 0 and at most 1");
}

/** The traces of every file, and how many of their lines were not traces. */
function readTraceFiles(files: readonly string[]) {
  let invalidLines = 0;
  const traces = files.flatMap((file) => {
    const read = readTraces(file);
    invalidLines += read.invalidLines;
    return read.traces;
  });
  return { traces, invalidLines };
}

function readExamples(
  files: readonly string[],
  node: string,
  before: DelegateTrace[] = [],
  after: { traces: DelegateTrace[]; invalidLines: number } = { traces: [], invalidLines: 0 },
) {
  const read = readTraceFiles(files);
  // Resolutions from a run store first, people's decisions (--resolved) last: a later trace (a correction) wins.
  const all = [...before, ...read.traces, ...after.traces];
  return {
    ...examplesFromTraces(all, node),
    invalidLines: read.invalidLines + after.invalidLines,
    traces: all.length,
  };
}

/**
 * @internal What makes two inputs the same one: the instruction and the facts' canonical JSON (nested keys
 * included; a key list given to `JSON.stringify` would drop every nested key not also at the top).
 */
export const inputKey = (instruction: string, facts: Record<string, unknown>) =>
  `${instruction}\0${canonicalJson(facts)}`;

const percent = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);

/**
 * `deputy distill [TRACES…] [--store RUNS.db] [--resolved FILE…] --node ID --out MODEL.json [--encoder gguf=PATH|local=NAME]
 * [--target-precision 0.98] [--confidence-floor 0.8] [--holdout FILE…] [--measure FILE…] [--max-minutes M]`.
 */
export function registerDistill(program: Command, ctx: CliContext): void {
  program
    .command("distill [traces...]")
    .description(
      "train a distilled delegate for one node from its traces (accepted calls, teacher answers, resolutions)",
    )
    .requiredOption("--node <id>", "the plan node whose calls to learn")
    .requiredOption("--out <file>", "where to write the model (JSON)")
    .option("--target-precision <p>", "precision the recommended min_confidence aims for", "0.98")
    .option(
      "--confidence-floor <p>",
      "the recommended min_confidence is never below this (0: the bare rule)",
      String(DEFAULT_CONFIDENCE_FLOOR),
    )
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
    .option(
      "--encoder <spec>",
      "also train on a pretrained encoder's vectors: gguf=PATH (scripts/encoder-model.sh fetches all-MiniLM-L6-v2), or local=NAME, a catalogued model's own hidden states (e.g. local=qwen2.5-coder-0.5b-instruct)",
    )
    .option(
      "--store <file>",
      "also learn from the node's escalations people resolved in this run store (SQLite)",
    )
    .option("--tools <module>", "tools module whose specs replace those --store escalations recorded")
    .option(
      "--resolved <files...>",
      "trace files of people's decisions on the node's real inputs: trained on, and they choose the threshold out of fold, as --store's resolved escalations do",
    )
    .option(
      "--measure <files...>",
      "trace files only measured (never trained or tuned on), at the recommended threshold",
    )
    .option(
      "--max-minutes <m>",
      "with --encoder: refuse to start when embedding the texts is estimated (the first batch timed) to take longer",
    )
    .option("--json", "print the measurements as JSON")
    .action(async (files: string[], flags: DistillFlags) => {
      const targetPrecision = fraction("--target-precision", flags.targetPrecision);
      const confidenceFloor = fraction("--confidence-floor", flags.confidenceFloor, true);
      const heldOutShare = fraction("--held-out-share", flags.heldOutShare, true);
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed)) throw new InvalidOptionError("--seed", "an integer", flags.seed);
      const encoderSpec = flags.encoder === undefined ? undefined : parseEncoderSpec(flags.encoder);
      const maxMinutes = parseMaxMinutes(flags.maxMinutes);
      const now = sourceDateClock();
      const resolvedFiles = flags.resolved ?? [];
      if (files.length === 0 && !flags.store && resolvedFiles.length === 0)
        throw new InvalidOptionError(
          "TRACES",
          "trace files, --resolved files, or --store with a run store",
          "nothing",
        );
      let fromStore: StoreSummary | undefined;
      if (flags.store) fromStore = await storeTraces(flags.store, flags.node, flags.tools);
      const fromFiles = readTraceFiles(resolvedFiles);
      const selection = readExamples(files, flags.node, fromStore?.traces, fromFiles);
      if (selection.examples.length < 2)
        throw new InvalidOptionError(
          "TRACES",
          `trace files with at least 2 labelled calls of node "${flags.node}"`,
          `${selection.examples.length} in ${selection.traces} trace(s)`,
        );
      let heldOut: TrainingExample[] | undefined;
      if (flags.holdout) heldOut = readExamples(flags.holdout, flags.node).examples;
      const measureSet = flags.measure ? readExamples(flags.measure, flags.node).examples : undefined;
      // People's resolutions of escalations are worded like the traffic: they choose the threshold (out of fold).
      const people = [...(fromStore?.traces ?? []), ...fromFiles.traces];
      const resolved = new Set(people.map((t) => inputKey(t.instruction, t.facts)));
      const validation = new Set(
        selection.examples.filter((e) => resolved.has(inputKey(e.instruction, e.facts))),
      );
      const options = {
        node: flags.node,
        targetPrecision,
        confidenceFloor,
        heldOutShare,
        seed,
        ...(heldOut ? { heldOut } : {}),
        ...(validation.size ? { validation } : {}),
        ...(now ? { _internal: { now } } : {}),
      };
      const started = performance.now();
      let encoder: TextEncoder | undefined;
      let result: TrainDistilledResult & { ownMinConfidence?: number };
      let measured: Measurement | undefined;
      let ahead: EmbeddedAhead | undefined;
      try {
        if (encoderSpec) {
          encoder = await GgufTextEncoder.open(encoderSpec.path);
          // Every text training and --measure embed, embedded first: the time is stated (and bounded) up front.
          const planned = encoderTrainingTexts(selection.examples, options, encoder.info);
          const measureTexts = (measureSet ?? []).map((e) =>
            encoderInput(planned.record, e.instruction, e.facts),
          );
          ahead = await embedWithEstimate(ctx, encoder, [...planned.texts, ...measureTexts], {
            maxMinutes,
            json: flags.json === true,
          });
          if (!ahead) return; // over --max-minutes: said, exit 2, nothing written
        }
        result = ahead
          ? await trainDistilledWithEncoder(selection.examples, options, ahead.encoder)
          : trainDistilled(selection.examples, options);
        if (measureSet) measured = await measureModel(result.model, measureSet, ahead?.encoder);
      } finally {
        await encoder?.close();
      }
      const seconds = (performance.now() - started) / 1000;
      saveModelFile(flags.out, result.model);
      const bySource: Record<string, number> = {};
      for (const e of selection.examples) bySource[e.source] = (bySource[e.source] ?? 0) + 1;
      const report = {
        node: flags.node,
        model: flags.out,
        examples: selection.examples.length,
        bySource,
        ...(fromStore ? { store: { ...fromStore, traces: fromStore.traces.length } } : {}),
        ...(result.model.encoder
          ? {
              encoder: {
                name: result.model.encoder.name,
                sha256: result.model.encoder.sha256,
                dimension: result.model.encoder.dimension,
                ...(result.model.encoder.pooling ? { pooling: result.model.encoder.pooling } : {}),
                input: result.model.encoder.input ?? "instruction",
                crossCheck: result.model.crossCheck !== undefined,
              },
            }
          : {}),
        ...(ahead ? { embedding: embeddingJson(ahead) } : {}),
        skipped: { ...selection.skipped, invalidLines: selection.invalidLines },
        trainingExamples: result.trainingExamples,
        heldOutExamples: result.heldOutExamples,
        tuningExamples: result.tuningExamples,
        validationExamples: result.validationExamples,
        trainSeconds: Number(seconds.toFixed(3)),
        heldOutAccuracy: result.heldOutAccuracy,
        heldOut: result.heldOutTable,
        outOfFold: result.calibrationTable,
        targetPrecision,
        confidenceFloor,
        recommendedMinConfidence: result.recommendedMinConfidence,
        ...(result.ownMinConfidence === undefined ? {} : { ownMinConfidence: result.ownMinConfidence }),
        ...(measured
          ? {
              measured: {
                files: flags.measure,
                examples: measured.examples,
                accuracy: measured.accuracy,
                atRecommended: measured.atRecommended,
              },
            }
          : {}),
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
        ...(fromStore
          ? [
              `${flags.store}: ${fromStore.traces.length} resolved escalation(s) of "${flags.node}" in ${fromStore.runs} run(s)${fromStore.unresolved ? `, ${fromStore.unresolved} not resolved yet` : ""}${fromStore.values ? `, ${fromStore.values} resolved with a value (not a call: left out)` : ""}${fromStore.unrecorded ? `, ${fromStore.unrecorded} stored before escalations kept their input (left out)` : ""}`,
            ]
          : []),
        `node "${flags.node}": ${selection.examples.length} labelled example(s) (${sources})${left ? `; left out: ${left}` : ""}`,
        `trained on ${result.trainingExamples}${result.tuningExamples ? `, tuned on ${result.tuningExamples} held out` : ""}${result.validationExamples ? `, threshold chosen on ${result.validationExamples} people's decisions (out of fold)` : ""}, measured on ${result.heldOutExamples} held out${flags.holdout ? ` (${flags.holdout.join(", ")})` : ""}, in ${seconds.toFixed(2)} s${ahead ? ` (embedding ${ahead.estimate.texts} text(s): ${ahead.seconds.toFixed(1)} s)` : ""}`,
        `held-out exact-match accuracy: ${percent(result.heldOutAccuracy)}`,
        "",
        "min_confidence  coverage  precision   (held out)",
        ...result.heldOutTable.map(
          (t) =>
            `${t.threshold.toFixed(3).padEnd(16)}${percent(t.coverage).padStart(8)}  ${percent(t.precision).padStart(9)}${t.threshold === (result.ownMinConfidence ?? result.recommendedMinConfidence) ? (result.ownMinConfidence === undefined ? "   ← recommended" : "   ← its own heads' choice") : ""}`,
        ),
        "",
        result.model.readerHead
          ? `recommended min_confidence: ${result.recommendedMinConfidence} (the tuned reader's head decides: its probability gates at the target precision ${percent(targetPrecision)}, at least ${confidenceFloor}; its own heads chose ${result.ownMinConfidence ?? "?"} out of fold)`
          : result.recommendedMinConfidence >= 1
            ? `no threshold reached precision ${percent(targetPrecision)} on out-of-fold predictions: the model should decide nothing alone (min_confidence 1); add traces`
            : `recommended min_confidence: ${result.recommendedMinConfidence} (the smallest reaching precision ${percent(targetPrecision)} on ${result.tuningExamples ? "the tuning half of the held-out set" : result.validationExamples ? "out-of-fold predictions of people's decisions" : "out-of-fold predictions"}, and at least ${confidenceFloor}${result.recommendedMinConfidence === confidenceFloor ? ": the floor decided" : ""})`,
        ...(measured
          ? [
              `measured on ${measured.examples} (${flags.measure!.join(", ")}; not trained or tuned on): accuracy ${percent(measured.accuracy)}, at min_confidence ${result.recommendedMinConfidence} coverage ${percent(measured.atRecommended.coverage)}, precision ${percent(measured.atRecommended.precision)}`,
            ]
          : []),
        `model written to ${flags.out} (${Math.round(statSync(flags.out).size / 1024)} KB)${result.model.encoder ? `, on the encoder ${result.model.encoder.name} (${result.model.encoder.dimension} dimensions${result.model.encoder.pooling ? `, ${result.model.encoder.pooling} pooling` : ""}${result.model.encoder.input === "task" ? ", the rendered task embedded" : ""})${result.model.readerHead ? `; its class decision is the tuned reader's own head (${result.model.readerHead.labels.length} labels: the tables above are its own heads', --measure is the level as it decides)` : result.model.crossCheck ? "; a call is accepted only when the n-gram cross-check proposes it too" : ""}` : ""}`,
      ];
      ctx.stdout(lines.join("\n") + "\n");
    });
}
