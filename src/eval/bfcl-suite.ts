import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { BfclAnswer, BfclSample } from "./bfcl.js";

/**
 * The BFCL categories deputy scores: one call among one tool, among several, or none (decline) — for questions
 * BFCL wrote (`irrelevance`) and for real users' questions (`live_irrelevance`).
 */
export type BfclCategory = "simple" | "multiple" | "irrelevance" | "live_irrelevance";

/** The categories in report order. */
export const BFCL_CATEGORIES: readonly BfclCategory[] = [
  "simple",
  "multiple",
  "irrelevance",
  "live_irrelevance",
];

/** Whether the right answer in a category is to decline. */
export function isDeclineCategory(category: BfclCategory): boolean {
  return category === "irrelevance" || category === "live_irrelevance";
}

/** One BFCL case: its category, the sample, and (for call categories) the accepted answers. */
export interface BfclCase {
  category: BfclCategory;
  sample: BfclSample;
  answer?: BfclAnswer;
}

/** The cases of a loaded suite, file by file. */
export function bfclCases(suite: readonly BfclSuiteFile[]): BfclCase[] {
  return suite.flatMap(({ category, samples, answers }) =>
    samples.map((sample) => {
      const answer = answers.get(sample.id);
      return answer ? { category, sample, answer } : { category, sample };
    }),
  );
}

/** One BFCL file: its category, cases and (except for irrelevance) the accepted answers by case id. */
export interface BfclSuiteFile {
  file: string;
  category: BfclCategory;
  samples: BfclSample[];
  answers: Map<string, BfclAnswer>;
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

/**
 * Reads a BFCL suite: one `.jsonl` file or every one in a folder, whose name says its category (others are
 * ignored), with answers from `possible_answer/<same name>` beside it. `limit` keeps the first cases of each file.
 */
export function loadBfclSuite(path: string, options: { limit?: number } = {}): BfclSuiteFile[] {
  const { limit } = options;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new InvalidOptionError("limit", "a positive integer", limit);
  }
  if (!existsSync(path))
    throw new InvalidOptionError("suite", "a BFCL .jsonl file or a folder of them", path);
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith(".jsonl"))
        .sort()
        .map((f) => join(path, f))
    : [path];
  return files.flatMap((file) => {
    const category = bfclCategoryOf(file);
    if (!category) return [];
    const answerFile = join(dirname(file), "possible_answer", basename(file));
    const answers = new Map<string, BfclAnswer>();
    if (!isDeclineCategory(category)) {
      if (!existsSync(answerFile)) {
        throw new InvalidOptionError("suite", `BFCL answers beside ${file} (possible_answer/)`, answerFile);
      }
      for (const a of readJsonl<BfclAnswer>(answerFile)) answers.set(a.id, a);
    }
    return [{ file, category, samples: readJsonl<BfclSample>(file).slice(0, limit), answers }];
  });
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}
