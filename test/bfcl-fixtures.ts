import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BfclAnswer, BfclSample } from "../src/eval/bfcl.js";

/** Where the BFCL samples live (a copy of the shared BFCL V4 samples, Apache-2.0, see its SOURCE.md). */
export const BFCL_DIR =
  process.env.DEPUTY_BFCL_DIR ?? fileURLToPath(new URL("./fixtures/bfcl", import.meta.url));

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** Every sample file (simple, multiple, irrelevance, live irrelevance). */
export function loadAllBfclSamples(): { file: string; sample: BfclSample }[] {
  return readdirSync(BFCL_DIR)
    .filter((f) => f.endsWith(".jsonl"))
    .flatMap((file) => readJsonl<BfclSample>(join(BFCL_DIR, file)).map((sample) => ({ file, sample })));
}

/** The samples that have ground truth, each with its answer. */
export function loadBfclWithAnswers(): { sample: BfclSample; answer: BfclAnswer }[] {
  const answerDir = join(BFCL_DIR, "possible_answer");
  return readdirSync(answerDir)
    .filter((f) => f.endsWith(".jsonl"))
    .flatMap((file) => {
      const samples = readJsonl<BfclSample>(join(BFCL_DIR, file));
      const answers = new Map(readJsonl<BfclAnswer>(join(answerDir, file)).map((a) => [a.id, a]));
      return samples.map((sample) => ({ sample, answer: answers.get(sample.id)! }));
    });
}
