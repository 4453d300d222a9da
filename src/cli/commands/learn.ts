import { numberOption } from "../number-option.js";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULT_CONFIDENCE_FLOOR } from "../../distill/confidence-floor.js";
import type { EmbeddedAhead } from "../../distill/embed-ahead.js";
import { GgufTextEncoder } from "../../distill/gguf-text-encoder.js";
import { loadModelFile } from "../../distill/model-file.js";
import { parseEncoderSpec, sameEncoder, type TextEncoder } from "../../distill/text-encoder.js";
import type { TunedReader } from "../../distill/tune-reader.js";
import { examplesFromTraces, type TrainingExample } from "../../distill/training-examples.js";
import { loadTrustModel } from "../../distill/trust-model-file.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { readDecisionSuite } from "../../eval/decision-suite.js";
import { decisionHash } from "../../eval/learn/decision-split.js";
import {
  learnEncoderTexts,
  learnNode,
  learnTrainingExamples,
  type Champion,
} from "../../eval/learn/learn-node.js";
import { applyLearnResult, championTrainedOn, fileSha256, nodeFiles } from "../../eval/learn/node-files.js";
import { systemClock } from "../../runtime/clock.js";
import { readTraces } from "../../traces/read-traces.js";
import type { CliContext } from "../cli-context.js";
import { sourceDateClock } from "../source-date-clock.js";
import { storeTraces } from "./distill-store.js";
import { embeddingJson, embedWithEstimate, parseMaxMinutes } from "./embedding-estimate.js";
import { tunedJson, tuneWithEstimate } from "./tune-estimate.js";
import { learnJson, renderLearn } from "./learn-render.js";
import { learnCurveSvg } from "./learn-svg.js";

interface LearnFlags {
  node: string;
  model: string;
  trust?: string;
  decisions: string[];
  store?: string;
  tools?: string;
  targetPrecision: string;
  confidenceFloor: string;
  heldOutShare: string;
  seed: string;
  curvePoints: string;
  encoder?: string;
  dryRun?: boolean;
  curveSvg?: string;
  maxMinutes?: string;
  tune?: boolean;
  python?: string;
  json?: boolean;
}

/** The team's decisions: a run store's resolved escalations first, then each file's; a later one of an input wins. */
async function readDecisions(flags: LearnFlags): Promise<TrainingExample[]> {
  const byInput = new Map<string, TrainingExample>();
  const add = (e: TrainingExample) => {
    const key = decisionHash(e.instruction, e.facts);
    byInput.delete(key);
    byInput.set(key, e);
  };
  if (flags.store) {
    const fromStore = await storeTraces(flags.store, flags.node, flags.tools);
    for (const e of examplesFromTraces(fromStore.traces, flags.node).examples) add(e);
  }
  for (const file of flags.decisions) {
    if (!existsSync(file))
      throw new InvalidOptionError("--decisions", "an existing .jsonl file of decisions", file);
    for (const c of readDecisionSuite(file, { node: flags.node }).cases)
      add({ instruction: c.instruction, facts: c.facts, tools: c.tools, call: c.call, source: "person" });
  }
  return [...byInput.values()];
}

/**
 * `deputy learn [TRACES…] --node ID --model MODEL.json [--decisions FILE…] [--store RUNS.db]`: one turn of the
 * learning loop (see docs/learning.md).
 */
export function registerLearn(program: Command, ctx: CliContext): void {
  program
    .command("learn [traces...]")
    .description(
      "retrain a node's distilled model on the team's decisions, measure it against the current one on decisions neither trained on, and promote it only when it is better",
    )
    .requiredOption("--node <id>", "the plan node whose decisions to learn")
    .requiredOption(
      "--model <file>",
      "the node's model file: the champion when it exists, replaced on a promotion (the previous kept as *.prev.json)",
    )
    .option("--trust <file>", "the node's trust model file (default: MODEL's name with .trust.json)")
    .option(
      "--decisions <file>",
      "the team's decisions (traces or chat examples, .jsonl); repeatable",
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option("--store <file>", "also the node's escalations people resolved in this run store (SQLite)")
    .option("--tools <module>", "tools module whose specs replace those --store escalations recorded")
    .option("--target-precision <p>", "precision the thresholds aim for and a promotion demands", "0.97")
    .option(
      "--confidence-floor <p>",
      "the challenger's min_confidence is never below this",
      String(DEFAULT_CONFIDENCE_FLOOR),
    )
    .option("--held-out-share <p>", "share of the decisions held out (seeded, by content)", "0.3")
    .option("--seed <n>", "seed of the split, the folds and training order", "1")
    .option(
      "--curve-points <n>",
      "models trained on growing shares of the decisions for the curve (1–10)",
      "3",
    )
    .option(
      "--encoder <spec>",
      "train with a pretrained encoder, as deputy distill: gguf=PATH, or local=NAME (a catalogued model's own hidden states); default: the encoder file the current model recorded",
    )
    .option(
      "--tune",
      "first tune the --encoder model into a reader of this node's decisions (LoRA on CPU, Python with torch: scripts/tune-env.sh), written beside MODEL as NODE.reader-SHA.gguf; the challenger is trained on it, the champion measured with its own encoder",
    )
    .option(
      "--python <path>",
      "with --tune: the Python to tune with (default: DEPUTY_PYTHON, then scripts/tune-env.sh's)",
    )
    .option(
      "--max-minutes <m>",
      "with --encoder: refuse to start tuning or embedding when it is estimated (the first steps timed) to take longer",
    )
    .option("--curve-svg <file>", "also draw the curve as an SVG picture in FILE")
    .option("--dry-run", "measure and print, write no model file or history")
    .option("--json", "print the result as JSON")
    .action(async (traceFiles: string[], flags: LearnFlags) => {
      const targetPrecision = numberOption(
        "--target-precision",
        flags.targetPrecision,
        (n) => n > 0 && n < 1,
        "a number between 0 and 1",
      );
      const confidenceFloor = numberOption(
        "--confidence-floor",
        flags.confidenceFloor,
        (n) => n >= 0 && n <= 1,
        "a number from 0 to 1",
      );
      const heldOutShare = numberOption(
        "--held-out-share",
        flags.heldOutShare,
        (n) => n > 0 && n < 1,
        "a number between 0 and 1",
      );
      const seed = numberOption("--seed", flags.seed, Number.isInteger, "an integer");
      const curvePoints = numberOption(
        "--curve-points",
        flags.curvePoints,
        (n) => Number.isInteger(n) && n >= 1 && n <= 10,
        "an integer from 1 to 10",
      );
      let encoderSpec = flags.encoder === undefined ? undefined : parseEncoderSpec(flags.encoder);
      if (flags.python !== undefined && !flags.tune)
        throw new InvalidOptionError("--python", "given only with --tune", flags.python);
      if (flags.tune && !encoderSpec)
        throw new InvalidOptionError(
          "--encoder",
          "the model --tune starts from (local=NAME of a catalogued model, or gguf=PATH of a decoder)",
          "none",
        );
      const maxMinutes = parseMaxMinutes(flags.maxMinutes);
      const now = sourceDateClock();
      if (flags.decisions.length === 0 && !flags.store)
        throw new InvalidOptionError(
          "--decisions or --store",
          "the team's decisions to learn from",
          "neither",
        );
      for (const file of traceFiles)
        if (!existsSync(file)) throw new InvalidOptionError("TRACES", "existing trace files", file);
      const files = nodeFiles(flags.model, flags.trust);
      let champion: Champion | undefined;
      let championEncoderPath: string | undefined;
      if (existsSync(files.model)) {
        const model = loadModelFile(files.model);
        if (model.node !== flags.node)
          throw new InvalidOptionError(
            "--model",
            `a model of node "${flags.node}"`,
            `a model of "${model.node}"`,
          );
        // The champion is measured with its own encoder file, where it was trained (its sha256 is checked when
        // it is opened); without --encoder the challenger is trained with it too.
        if (model.encoder) {
          const recorded = model.encoder.path;
          if (recorded !== undefined && existsSync(recorded)) championEncoderPath = recorded;
          if (!encoderSpec && !championEncoderPath)
            throw new InvalidOptionError(
              "--encoder",
              `given: the model was trained with ${model.encoder.name}${recorded ? `, no longer at ${recorded}` : ""}`,
              "none",
            );
          encoderSpec ??= { kind: "gguf", path: recorded! };
        }
        const trainedOn = championTrainedOn(files);
        champion = { model, ...(trainedOn ? { trainedOn } : {}) };
      }
      if (flags.tune && champion?.model.encoder && !championEncoderPath)
        throw new InvalidOptionError(
          "--model",
          `a model whose encoder file is where it was trained (${champion.model.encoder.name}), to measure it against the tuned one`,
          files.model,
        );
      if (existsSync(files.trust)) {
        const trust = loadTrustModel(files.trust); // a broken trust file is bad input, before any work
        // The gate judges the champion by it when it was fitted for this very file (or records nothing, as
        // files written before the record): then the champion is measured through it too.
        const fittedFor = trust.fittedFor?.sha256;
        if (champion && (fittedFor === undefined || fittedFor === fileSha256(files.model)))
          champion = { ...champion, trust };
      }
      const decisions = await readDecisions(flags);
      const traces = examplesFromTraces(
        traceFiles.flatMap((f) => readTraces(f).traces),
        flags.node,
      ).examples;
      if (decisions.length === 0)
        throw new InvalidOptionError("--decisions", `decisions of node "${flags.node}"`, "none");
      const progress = ctx.isTTY && !flags.json;
      const started = performance.now();
      let encoder: TextEncoder | undefined;
      let championEncoder: TextEncoder | undefined;
      let ahead: EmbeddedAhead | undefined;
      let tuned: TunedReader | undefined;
      let result;
      let keepTuned = false;
      try {
        const learnOptions = {
          node: flags.node,
          traces,
          decisions,
          ...(champion ? { champion } : {}),
          targetPrecision,
          confidenceFloor,
          heldOutShare,
          seed,
          curvePoints,
          ...(now ? { _internal: { now } } : {}),
        };
        if (flags.tune && encoderSpec) {
          // The reader reads only what the challenger trains on: the held-out decisions stay unseen.
          tuned = await tuneWithEstimate(ctx, {
            base: encoderSpec.path,
            examples: learnTrainingExamples(learnOptions),
            dir: dirname(files.model),
            stem: basename(files.model).replace(/\.json$/, ""),
            seed,
            ...(flags.python ? { python: flags.python } : {}),
            maxMinutes,
            json: flags.json === true,
          });
          if (!tuned) return; // over --max-minutes: said, exit 2, nothing written
          encoderSpec = { kind: "gguf", path: tuned.path };
        }
        if (encoderSpec) {
          encoder = await GgufTextEncoder.open(encoderSpec.path);
          // A champion trained with another encoder file (another sha256) is measured with its own.
          const own = champion?.model.encoder;
          const separate = own !== undefined && !sameEncoder(own, encoder.info);
          if (separate) {
            if (!championEncoderPath)
              throw new InvalidOptionError(
                "--model",
                `a model whose encoder file is where it was trained (${own.name}${own.path ? `, no longer at ${own.path}` : ""}), to measure it`,
                files.model,
              );
            championEncoder = await GgufTextEncoder.open(championEncoderPath);
            if (!sameEncoder(own, championEncoder.info))
              throw new InvalidOptionError(
                "--model",
                `a model whose encoder file is the one it was trained with (sha256 ${own.sha256.slice(0, 12)}…)`,
                `${championEncoderPath} with sha256 ${championEncoder.info.sha256.slice(0, 12)}…`,
              );
          }
          ahead = await embedWithEstimate(
            ctx,
            encoder,
            learnEncoderTexts(learnOptions, encoder.info, { champion: !separate }),
            { maxMinutes, json: flags.json === true },
          );
          if (!ahead) return; // over --max-minutes: said, exit 2, nothing written
        }
        result = await learnNode({
          ...learnOptions,
          ...(ahead ? { encoder: ahead.encoder } : {}),
          ...(championEncoder ? { championEncoder } : {}),
          ...(progress
            ? {
                onProgress: (step: string) =>
                  ctx.rawStderr(
                    `\r\x1b[K  learn: ${step} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
                  ),
              }
            : {}),
        });
        keepTuned = result.verdict.promote && !flags.dryRun;
      } finally {
        if (progress) ctx.rawStderr("\r\x1b[K");
        await encoder?.close();
        await championEncoder?.close();
        // A tuned reader the node does not take is not kept (it is the size of the model).
        if (tuned && !keepTuned && !tuned.existed) {
          rmSync(tuned.path, { force: true });
          rmSync(tuned.path.replace(/\.gguf$/, ".json"), { force: true });
        }
      }
      const seconds = (performance.now() - started) / 1000;
      const entry = flags.dryRun ? undefined : applyLearnResult(result, files, new Date(systemClock()));
      if (flags.curveSvg) {
        const title = `${flags.node}: share of ${result.counts.heldOut} held-out decisions decided (target ${targetPrecision})`;
        mkdirSync(dirname(resolve(flags.curveSvg)), { recursive: true });
        writeFileSync(flags.curveSvg, learnCurveSvg(result.curve, result.champion?.measured, title));
      }
      if (flags.json)
        ctx.stdout(
          JSON.stringify(
            {
              ...learnJson(result, files, entry, seconds),
              ...(ahead ? { embedding: embeddingJson(ahead) } : {}),
              ...(tuned ? { tuned: tunedJson(tuned, keepTuned) } : {}),
              ...(result.readerHead ? { readerHead: result.readerHead } : {}),
            },
            null,
            2,
          ) + "\n",
        );
      else {
        if (tuned)
          ctx.stdout(
            tuned.existed
              ? `reader: ${tuned.path} (tuned again to the same bytes: the same decisions and seed)\n`
              : keepTuned
                ? `reader: ${tuned.path} (tuned on ${tuned.examples} decisions and traces, ${tuned.labels.length} labels, ${tuned.steps} steps) — the promoted model reads with it\n`
                : `reader: tuned on ${tuned.examples} decisions and traces, not kept (${flags.dryRun ? "--dry-run" : "the challenger was not promoted"})\n`,
          );
        if (result.readerHead) {
          const h = result.readerHead;
          const at = (m: typeof h.head) =>
            `${(100 * m.share).toFixed(1)} % at ${m.precision === null ? "–" : `${(100 * m.precision).toFixed(1)} %`}`;
          ctx.stdout(
            `class decision: ${h.chosen ? "the reader's own head" : "the level's own heads"} (head ${at(h.head)}, own heads ${at(h.own)} of the held-out decisions: ${h.reason})\n`,
          );
        }
        ctx.stdout(renderLearn(result, files, entry, seconds));
      }
    });
}
