import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { fileSha256 } from "./file-sha256.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import { readerHeadLogits } from "./reader-head.js";
import type { TrainingExample } from "./training-examples.js";
import { tuningSet } from "./tuning-set.js";

/** The trainer deputy ships: a LoRA adapter and a label head on a GGUF decoder, folded into a GGUF copy. */
export const TUNE_SCRIPT = fileURLToPath(new URL("../../python/deputy_tune.py", import.meta.url));

/** Where `scripts/tune-env.sh` puts the Python that {@link TUNE_SCRIPT} needs (torch, transformers, peft, gguf). */
export function tuneVenvPython(): string {
  const cache = process.env["DEPUTY_CACHE"] || join(homedir(), ".cache", "deputy");
  return join(cache, "tune-venv", "bin", "python");
}

/**
 * The Python to tune with: the given one, else `DEPUTY_PYTHON`, else the one `scripts/tune-env.sh` installed,
 * else `python3`.
 */
export function tunePython(given?: string): string {
  const venv = tuneVenvPython();
  return given || process.env["DEPUTY_PYTHON"] || (existsSync(venv) ? venv : "python3");
}

/** How long tuning will take, from the steps timed so far. */
export interface TuneEstimate {
  examples: number;
  labels: number;
  steps: number;
  /** Steps timed (the first one, which warms up, included). */
  timed: number;
  secondsPerStep: number;
  /** Estimated seconds for every step (the copy of the weights after them takes seconds more). */
  seconds: number;
}

/** Options of {@link tuneReader}. */
export interface TuneReaderOptions {
  /** The base decoder's GGUF (a catalogued model's file: `local=NAME`). */
  base: string;
  /** What it learns from: deputy's encoder text of each example and the call's label ({@link tuningSet}). */
  examples: readonly TrainingExample[];
  /** The tuned file's folder and the start of its name: `${stem}.reader-SHA12.gguf`. */
  dir: string;
  stem: string;
  /** Seed of the adapter's initialisation, dropout and order. Default 1. */
  seed?: number;
  /** Python with torch, transformers, peft and gguf (see {@link tunePython}). */
  python?: string;
  /** @internal Stop after this many steps (the tests' tiny fixture). */
  maxSteps?: number;
  /** Called once the first steps are timed; throw to stop (the child is killed, nothing is written). */
  onEstimate?: (estimate: TuneEstimate) => void;
  /** Called after each step. */
  onStep?: (step: number, steps: number, loss: number) => void;
}

/** What {@link tuneReader} wrote. */
export interface TunedReader {
  /** The tuned GGUF: named by its content, so a model that records it keeps finding the same weights. */
  path: string;
  sha256: string;
  examples: number;
  labels: string[];
  steps: number;
  seconds: number;
  /** The file was there already (the same decisions and seed tune the same bytes): it is someone's, keep it. */
  existed: boolean;
  /**
   * How far llama.cpp's logits for the trainer's check texts, read from the written file, are from the trainer's
   * own (the largest absolute difference), and whether every check text got the same top label: the head is kept
   * in the record only when they agree ({@link HEAD_TOLERANCE}).
   */
  headCheck?: { texts: number; maxLogitDelta: number; sameLabels: boolean; kept: boolean };
}

/**
 * The largest difference in any logit between the trainer's arithmetic and llama.cpp's reading of the written file
 * for which the head is kept: F16 attention weights, a quantized rest and llama.cpp's own kernels move logits by a
 * few hundredths; a different tokenisation or pooling moves them by whole units.
 */
export const HEAD_TOLERANCE = 0.5;

interface HeadFile {
  labels: string[];
  weights: number[][];
  check: { text: string; logits: number[] }[];
}

interface Line {
  event?: string;
  examples?: number;
  labels?: string[];
  steps?: number;
  step?: number;
  loss?: number;
  seconds?: number;
  path?: string;
}

/**
 * Tunes a reader for a node: trains a LoRA adapter and a head over the labels its people chose among on the base
 * decoder (seeded, one epoch, two CPU threads — about 13 s a step of 8 texts for a 0.5B), folds the adapter into
 * the attention weights and writes a GGUF copy beside the node's model, which `--encoder gguf=PATH` (and the
 * distilled level trained with it) reads. The file is written under a temporary name and renamed when whole: a
 * killed run leaves nothing under a real name. A Python without the packages is an {@link InvalidOptionError}.
 */
export async function tuneReader(options: TuneReaderOptions): Promise<TunedReader> {
  const set = tuningSet(options.examples);
  if (set.labels.length < 2)
    throw new InvalidOptionError(
      "--tune",
      "decisions with at least two different calls to learn",
      `${set.examples.length} decision(s), all "${set.labels[0] ?? "none"}"`,
    );
  mkdirSync(options.dir, { recursive: true });
  const working = join(options.dir, `${options.stem}.reader.tuning`);
  const setFile = `${working}.jsonl`;
  const out = `${working}.gguf`;
  const headFile = `${working}.head.json`;
  writeFileSync(setFile, set.examples.map((e) => JSON.stringify(e)).join("\n") + "\n");
  const python = tunePython(options.python);
  const args = [
    TUNE_SCRIPT,
    "--base",
    options.base,
    "--set",
    setFile,
    "--out",
    out,
    "--head",
    headFile,
    "--seed",
    String(options.seed ?? 1),
    ...(options.maxSteps === undefined ? [] : ["--max-steps", String(options.maxSteps)]),
  ];
  const started = performance.now();
  try {
    const done = await runTrainer(python, args, options, set.labels.length);
    const sha256 = await fileSha256(out);
    const trained = JSON.parse(readFileSync(headFile, "utf8")) as HeadFile;
    const headCheck = await checkHead(out, trained);
    const path = join(options.dir, `${options.stem}.reader-${sha256.slice(0, 12)}.gguf`);
    const existed = existsSync(path);
    const tuned: TunedReader = {
      path,
      sha256,
      examples: set.examples.length,
      labels: set.labels,
      steps: done.steps,
      seconds: (performance.now() - started) / 1000,
      existed,
      headCheck,
    };
    if (existed) return tuned; // the same bytes: its record stands
    // Beside it, how it was made: enough to make it again (the base's checksum, the seed, the labels).
    const record = {
      sha256,
      base: { path: options.base, sha256: await fileSha256(options.base) },
      seed: options.seed ?? 1,
      examples: tuned.examples,
      labels: tuned.labels,
      steps: tuned.steps,
      seconds: Number(tuned.seconds.toFixed(1)),
      recipe:
        "LoRA r 8, alpha 16, dropout 0.05 on q/k/v/o; head over the labels; 1 epoch, batch 8, AdamW lr 5e-4",
      prefix: set.prefix,
      headCheck,
      // The head a distilled level trained on this reader takes its class decision from (readerHeadBeside).
      ...(headCheck.kept && {
        head: { labels: trained.labels.map((l) => set.calls[l]!), weights: trained.weights },
      }),
    };
    writeFileSync(path.replace(/\.gguf$/, ".json"), JSON.stringify(record, null, 2) + "\n");
    renameSync(out, path);
    return tuned;
  } finally {
    rmSync(setFile, { force: true });
    rmSync(headFile, { force: true });
    rmSync(`${headFile}.partial`, { force: true });
    rmSync(out, { force: true });
    rmSync(`${out}.partial`, { force: true });
  }
}

/** Reads the written file with llama.cpp and compares its logits for the check texts with the trainer's. */
async function checkHead(gguf: string, head: HeadFile): Promise<NonNullable<TunedReader["headCheck"]>> {
  const encoder = await GgufTextEncoder.open(gguf, { contexts: 1 });
  try {
    const raw = await encoder.embedRaw(head.check.map((c) => c.text));
    let maxLogitDelta = 0;
    let sameLabels = true;
    const top = (l: readonly number[]) => l.indexOf(Math.max(...l));
    head.check.forEach((c, i) => {
      const ours = readerHeadLogits(head, raw[i]!);
      ours.forEach((l, k) => (maxLogitDelta = Math.max(maxLogitDelta, Math.abs(l - c.logits[k]!))));
      sameLabels &&= top(ours) === top(c.logits);
    });
    const kept = head.check.length > 0 && sameLabels && maxLogitDelta <= HEAD_TOLERANCE;
    return { texts: head.check.length, maxLogitDelta: Number(maxLogitDelta.toFixed(4)), sameLabels, kept };
  } finally {
    await encoder.close();
  }
}

function runTrainer(
  python: string,
  args: string[],
  options: TuneReaderOptions,
  labels: number,
): Promise<{ steps: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let buffered = "";
    let steps = 0;
    let estimated = false;
    let failure: unknown;
    const stop = (error: unknown) => {
      failure ??= error;
      child.kill("SIGTERM");
    };
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8000);
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const text = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let line: Line;
        try {
          line = JSON.parse(text) as Line;
        } catch {
          continue; // a library's own print: not ours
        }
        try {
          if (line.event === "start") steps = line.steps ?? 0;
          else if (line.event === "step" && line.step !== undefined) {
            options.onStep?.(line.step, line.steps ?? steps, line.loss ?? NaN);
            // The first step warms up; two timed steps say more (one, when that is all there is).
            if (!estimated && (line.step >= 2 || line.step >= steps)) {
              estimated = true;
              const secondsPerStep = (line.seconds ?? 0) / line.step;
              options.onEstimate?.({
                examples: options.examples.length,
                labels,
                steps,
                timed: line.step,
                secondsPerStep,
                seconds: secondsPerStep * steps,
              });
            }
          }
        } catch (error) {
          stop(error);
        }
      }
    });
    child.on("error", (error: NodeJS.ErrnoException) =>
      stop(
        error.code === "ENOENT"
          ? new InvalidOptionError(
              "--python",
              "a Python with torch, transformers, peft and gguf (bash scripts/tune-env.sh installs one)",
              python,
            )
          : error,
      ),
    );
    child.on("close", (code) => {
      if (failure !== undefined) return reject(failure);
      if (code === 0) return resolve({ steps });
      const said = stderr.trim().split("\n").filter(Boolean);
      const last = said.at(-1) ?? `exit code ${code}`;
      if (code === 2 && last.startsWith("deputy_tune: needs"))
        return reject(
          new InvalidOptionError(
            "--python",
            `a Python with torch, transformers, peft and gguf (bash scripts/tune-env.sh installs one; ${last.slice("deputy_tune: ".length)})`,
            python,
          ),
        );
      // The trainer's own refusals of its base (not a decoder it can load, a layout it cannot write back).
      if (code === 2 && last.startsWith("deputy_tune: "))
        return reject(
          new InvalidOptionError(
            "--encoder",
            `a GGUF decoder --tune can tune (${last.slice("deputy_tune: ".length)})`,
            options.base,
          ),
        );
      reject(new Error(`tuning the reader failed: ${last}`));
    });
  });
}
