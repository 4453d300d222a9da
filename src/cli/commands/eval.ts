import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Command } from "commander";
import { bfclAstMatch } from "../../eval/bfcl-ast-match.js";
import "../../delegate/backends/register-specs.js";
import { type BfclAnswer, type BfclSample, bfclQuestion, bfclToToolSpec } from "../../eval/bfcl.js";
import { createDelegateFromSpec } from "../../delegate/delegate-spec.js";
import { inputChars } from "../../delegate/prompt.js";
import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

type Category = "simple" | "multiple" | "irrelevance";

/** Totals of one category. */
interface Tally {
  cases: number;
  correct: number;
  declined: number;
  backendErrors: number;
  skipped: number;
  latencyMs: number;
}

/** The category of a BFCL file, from its name (`BFCL_v4_simple_python…`, `…_multiple…`, `…irrelevance…`). */
function categoryOf(file: string): Category | undefined {
  const name = basename(file);
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

/** BFCL files of a suite path (a file, or every `.jsonl` in a folder), each with its answers when it has them. */
function suiteFiles(path: string): { file: string; category: Category; answers: Map<string, BfclAnswer> }[] {
  if (!existsSync(path))
    throw new InvalidOptionError("--suite", "a BFCL .jsonl file or a folder of them", path);
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => join(path, f))
    : [path];
  return files.flatMap((file) => {
    const category = categoryOf(file);
    if (!category) return [];
    const answerFile = join(dirname(file), "possible_answer", basename(file));
    const answers = new Map<string, BfclAnswer>();
    if (category !== "irrelevance") {
      if (!existsSync(answerFile)) {
        throw new InvalidOptionError("--suite", `BFCL answers beside ${file} (possible_answer/)`, answerFile);
      }
      for (const a of readJsonl<BfclAnswer>(answerFile)) answers.set(a.id, a);
    }
    return [{ file, category, answers }];
  });
}

/**
 * `deputy eval --delegate SPEC --suite PATH`: runs a backend over BFCL-format cases and prints AST-match accuracy
 * by BFCL's rules for simple, multiple and irrelevance (where the right answer is to decline), so a user can
 * choose a model.
 */
export function registerEval(program: Command, ctx: CliContext): void {
  program
    .command("eval")
    .description("measure a delegate backend on BFCL-format cases (AST-match accuracy)")
    .requiredOption(
      "--delegate <spec>",
      "the backend, e.g. local=model.gguf or llama-server=http://127.0.0.1:8080",
    )
    .requiredOption("--suite <path>", "a BFCL .jsonl file or a folder of them (answers in possible_answer/)")
    .option("--limit <n>", "at most this many cases per file", (v) => Number(v))
    .option("--json", "print the results as JSON")
    .action(async (flags: { delegate: string; suite: string; limit?: number; json?: boolean }) => {
      if (flags.limit !== undefined && !(Number.isInteger(flags.limit) && flags.limit > 0)) {
        throw new InvalidOptionError("--limit", "a positive integer", flags.limit);
      }
      const files = suiteFiles(flags.suite);
      const delegate = await createDelegateFromSpec(flags.delegate);
      const tallies = new Map<Category, Tally>();
      try {
        for (const { file, category, answers } of files) {
          const samples = readJsonl<BfclSample>(file).slice(0, flags.limit);
          const tally = tallies.get(category) ?? {
            cases: 0,
            correct: 0,
            declined: 0,
            backendErrors: 0,
            skipped: 0,
            latencyMs: 0,
          };
          tallies.set(category, tally);
          for (const sample of samples) {
            const tools = sample.function.map(bfclToToolSpec);
            const instruction = bfclQuestion(sample);
            tally.cases++;
            if (tools.length > delegate.maxTools || inputChars(instruction, {}) > delegate.maxInputChars) {
              tally.skipped++;
              continue;
            }
            const started = performance.now();
            try {
              const proposal = await delegate.propose({ instruction, facts: {}, tools });
              tally.latencyMs += performance.now() - started;
              if (proposal.name === null) tally.declined++;
              if (category === "irrelevance") {
                if (proposal.name === null) tally.correct++;
              } else if (proposal.name !== null) {
                const answer = answers.get(sample.id);
                const params = tools.find((t) => t.name === proposal.name)?.parameters;
                if (
                  answer &&
                  bfclAstMatch({ name: proposal.name, arguments: proposal.arguments }, answer, params).ok
                ) {
                  tally.correct++;
                }
              }
            } catch (error) {
              if (!DelegateBackendError.isInstance(error)) throw error;
              tally.latencyMs += performance.now() - started;
              tally.backendErrors++;
            }
            if (ctx.isTTY && !flags.json) ctx.stderr(`\r${basename(file)}: ${tally.cases} cases`);
          }
          if (ctx.isTTY && !flags.json) ctx.stderr("\n");
        }
      } finally {
        await delegate.close();
      }
      const rows = [...tallies].map(([category, t]) => {
        const scored = t.cases - t.skipped;
        return {
          category,
          ...t,
          accuracy: scored > 0 ? t.correct / scored : null,
          meanLatencyMs: scored > 0 ? t.latencyMs / scored : null,
        };
      });
      if (flags.json) {
        ctx.stdout(JSON.stringify({ delegate: delegate.name, results: rows }, null, 2) + "\n");
      } else {
        ctx.stdout(renderTable(delegate.name, rows));
      }
      ctx.setExitCode(EXIT.completed);
    });
}

function renderTable(
  name: string,
  rows: (Tally & { category: string; accuracy: number | null; meanLatencyMs: number | null })[],
): string {
  const header = [
    "category",
    "cases",
    "correct",
    "accuracy",
    "declined",
    "backend errors",
    "skipped",
    "mean ms",
  ];
  const body = rows.map((r) => [
    r.category,
    String(r.cases),
    String(r.correct),
    r.accuracy === null ? "-" : `${(r.accuracy * 100).toFixed(1)}%`,
    String(r.declined),
    String(r.backendErrors),
    String(r.skipped),
    r.meanLatencyMs === null ? "-" : r.meanLatencyMs.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [`BFCL AST-match accuracy of ${name}`, line(header), ...body.map(line)].join("\n") + "\n";
}
