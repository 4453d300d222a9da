import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InvalidOptionError } from "../errors/index.js";
import type { BfclAnswer, BfclSample } from "../delegate/bfcl.js";

/** BFCL categories deputy evaluates: calls (simple, multiple) and declines (irrelevance, live_irrelevance). */
export type BfclCategory = "simple" | "multiple" | "irrelevance" | "live_irrelevance";

/** The categories in report order. */
export const BFCL_CATEGORIES: readonly BfclCategory[] = [
  "simple",
  "multiple",
  "irrelevance",
  "live_irrelevance",
];

/** One BFCL case: its category, the sample, and (for call categories) the ground truth. */
export interface BfclCase {
  category: BfclCategory;
  sample: BfclSample;
  answer?: BfclAnswer;
}

/** Whether the right answer in a category is to decline. */
export function isDeclineCategory(category: BfclCategory): boolean {
  return category === "irrelevance" || category === "live_irrelevance";
}

/** The category of a BFCL file, from its name (`BFCL_v4_simple_python…`, `…live_irrelevance…`, …). */
export function bfclCategoryOf(file: string): BfclCategory | undefined {
  const name = basename(file);
  if (name.includes("live_irrelevance")) return "live_irrelevance";
  if (name.includes("irrelevance")) return "irrelevance";
  if (name.includes("multiple")) return "multiple";
  if (name.includes("simple")) return "simple";
  return undefined;
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

/**
 * The cases of a BFCL suite path (a `.jsonl` file, or every one in a folder, answers in `possible_answer/`),
 * at most `limit` per file, in file order. A missing path or missing answers are an {@link InvalidOptionError}.
 */
export function loadBfclSuite(path: string, options: { limit?: number } = {}): BfclCase[] {
  if (!existsSync(path)) {
    throw new InvalidOptionError("--suite", "a BFCL .jsonl file or a folder of them", path);
  }
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith(".jsonl"))
        .sort()
        .map((f) => join(path, f))
    : [path];
  return files.flatMap((file) => {
    const category = bfclCategoryOf(file);
    if (!category) return [];
    const samples = readJsonl<BfclSample>(file).slice(0, options.limit);
    if (isDeclineCategory(category)) return samples.map((sample) => ({ category, sample }));
    const answerFile = join(dirname(file), "possible_answer", basename(file));
    if (!existsSync(answerFile)) {
      throw new InvalidOptionError("--suite", `BFCL answers beside ${file} (possible_answer/)`, answerFile);
    }
    const answers = new Map(readJsonl<BfclAnswer>(answerFile).map((a) => [a.id, a]));
    return samples.map((sample) => ({ category, sample, answer: answers.get(sample.id) }));
  });
}
