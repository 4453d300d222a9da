import { appendFileSync, existsSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import { defaultDelegateSpecs } from "../../compose/delegate-specs.js";
import { InvalidOptionError } from "../../errors/index.js";
import { loadBfclSuite } from "../../eval/bfcl-suite.js";
import { evaluateBackend, type BackendEvaluation, type CategoryScore } from "../../eval/evaluate-backend.js";
import { FreeFormToolCallBaseline } from "../../eval/free-form-baseline.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

/**
 * `deputy eval --delegate SPEC --suite PATH [--records FILE]`: runs a backend over BFCL-format cases and prints
 * AST-match accuracy by BFCL's rules for simple, multiple, irrelevance and live_irrelevance (where the right
 * answer is to decline), so a user can choose a model. `--records` appends one JSON line per case (proposal,
 * correctness, confidence, mean token probability) for `deputy calibrate`. `--delegate free-form=URL` is the
 * baseline without deputy: a llama-server's model answering free-form through its own tool template.
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
    .option("--records <file>", "append one JSON line per case (for deputy calibrate)")
    .action(
      async (flags: {
        delegate: string;
        suite: string;
        limit?: number;
        json?: boolean;
        records?: string;
      }) => {
        if (flags.limit !== undefined && !(Number.isInteger(flags.limit) && flags.limit > 0)) {
          throw new InvalidOptionError("--limit", "a positive integer", flags.limit);
        }
        if (!existsSync(flags.suite)) {
          throw new InvalidOptionError("--suite", "a BFCL .jsonl file or a folder of them", flags.suite);
        }
        const suite = loadBfclSuite(flags.suite, flags.limit === undefined ? {} : { limit: flags.limit });
        const delegate = flags.delegate.startsWith("free-form=")
          ? new FreeFormToolCallBaseline({ baseUrl: flags.delegate.slice("free-form=".length) })
          : await defaultDelegateSpecs().create(flags.delegate);
        const records = flags.records;
        const progress = ctx.isTTY && !flags.json;
        let last: string | undefined;
        let evaluation: BackendEvaluation;
        try {
          evaluation = await evaluateBackend(delegate, suite, {
            ...(records ? { onRecord: (r) => appendFileSync(records, JSON.stringify(r) + "\n") } : {}),
            ...(progress
              ? {
                  onCase: (file: string, cases: number) => {
                    if (last !== undefined && last !== file) ctx.stderr("\n");
                    last = file;
                    ctx.stderr(`\r${basename(file)}: ${cases} cases`);
                  },
                }
              : {}),
          });
          if (last !== undefined) ctx.stderr("\n");
        } finally {
          await delegate.close();
        }
        if (flags.json) ctx.stdout(JSON.stringify(evaluation, null, 2) + "\n");
        else ctx.stdout(renderTable(evaluation.delegate, evaluation.results));
        ctx.setExitCode(EXIT.completed);
      },
    );
}

function renderTable(name: string, rows: CategoryScore[]): string {
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
