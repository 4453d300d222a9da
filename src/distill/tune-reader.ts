import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { fileSha256 } from "./file-sha256.js";
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
    "--seed",
    String(options.seed ?? 1),
    ...(options.maxSteps === undefined ? [] : ["--max-steps", String(options.maxSteps)]),
  ];
  const started = performance.now();
  try {
    const done = await runTrainer(python, args, options, set.labels.length);
    const sha256 = await fileSha256(out);
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
    };
    if (existed) return tuned; // the same bytes: its record stands
    // Beside it, how it was made: enough to make it again (the base's checksum, the seed, the labels).
    const record = {
      base: { path: options.base, sha256: await fileSha256(options.base) },
      seed: options.seed ?? 1,
      examples: tuned.examples,
      labels: tuned.labels,
      steps: tuned.steps,
      seconds: Number(tuned.seconds.toFixed(1)),
      recipe:
        "LoRA r 8, alpha 16, dropout 0.05 on q/k/v/o; head over the labels; 1 epoch, batch 8, AdamW lr 5e-4",
    };
    writeFileSync(path.replace(/\.gguf$/, ".json"), JSON.stringify(record, null, 2) + "\n");
    renameSync(out, path);
    return tuned;
  } finally {
    rmSync(setFile, { force: true });
    rmSync(out, { force: true });
    rmSync(`${out}.partial`, { force: true });
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
