import { appendFileSync, existsSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/index.js";
import { loadBfclSuite } from "../../eval/bfcl-suite.js";
import { evaluateBackend, type BackendEvaluation, type CategoryScore } from "../../eval/evaluate-backend.js";
import { suiteFormat } from "../../eval/decision-suite.js";
import { createBackend, evalDecisions, type DecisionEvalFlags } from "./eval-chain.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

/**
 * `deputy eval --delegate SPEC --suite PATH`: measures backends on a suite whose format it reads from the file.
 *
 * - BFCL-format cases: prints AST-match accuracy by BFCL's rules for simple, multiple, irrelevance and
 *   live_irrelevance (where the right answer is to decline), so a user can choose a model. `--records` appends
 *   one JSON line per case (proposal, correctness, confidence, mean token probability) for `deputy calibrate`.
 *   `--delegate free-form=URL` is the baseline without deputy: a llama-server's model answering free-form
 *   through its own tool template.
 * - deputy's decision records (traces, chat examples): runs a chain of levels (`--delegate` repeated, each with
 *   its gate threshold) as the cascade does and prints, per level, the share decided, precision with its Wilson
 *   interval, exact-call accuracy and latency, and the chain's automation; `--compare` a second chain (eval-chain.ts).
 */
export function registerEval(program: Command, ctx: CliContext): void {
  const collect = (value: string, previous: string[]) => [...previous, value];
  program
    .command("eval")
    .description("measure delegate backends on BFCL cases or on the team's decision records")
    .option(
      "--delegate <spec>",
      "a backend, e.g. local=model.gguf or distilled=m.json@0.9 (repeat for a chain; @T: its min_confidence)",
      collect,
      [],
    )
    .requiredOption(
      "--suite <path>",
      "decision records (.jsonl traces or chat examples) or BFCL .jsonl files (answers in possible_answer/)",
    )
    .option("--compare <spec>", "a second chain on the same decisions (repeat for its levels)", collect, [])
    .option("--min-confidence <p>", "the gate threshold of levels without @T", (v) => Number(v))
    .option("--free-text <names>", "comma-separated free-text arguments, scored present and non-empty")
    .option(
      "--free-text-overlap <x>",
      "also require this share of the person's words in a free-text argument",
      (v) => Number(v),
    )
    .option(
      "--trust",
      "fit a trust model per level from the decisions (out of fold) and print what it supports",
    )
    .option(
      "--target-precision <p>",
      "the precision --trust's Wilson lower bound must reach (default 0.97)",
      (v) => Number(v),
    )
    .option(
      "--trust-out <dir>",
      "as --trust, and write each fitted level's model to DIR/level-N.trust.json (--compare's: compare-level-N)",
    )
    .option("--node <id>", "only this node's decisions (and the node chat examples are asked as)")
    .option("--limit <n>", "at most this many cases per file (decisions: in all)", (v) => Number(v))
    .option("--json", "print the results as JSON")
    .option("--records <file>", "BFCL: append one JSON line per case (for deputy calibrate)")
    .action(async (flags: DecisionEvalFlags & { records?: string }) => {
      if (flags.delegate.length === 0)
        throw new InvalidOptionError("--delegate", "at least one backend spec", undefined);
      if (flags.limit !== undefined && !(Number.isInteger(flags.limit) && flags.limit > 0)) {
        throw new InvalidOptionError("--limit", "a positive integer", flags.limit);
      }
      if (!existsSync(flags.suite)) {
        throw new InvalidOptionError(
          "--suite",
          "a .jsonl file of decision records or BFCL cases, or a folder of them",
          flags.suite,
        );
      }
      if (suiteFormat(flags.suite) === "decisions") {
        if (flags.records)
          throw new InvalidOptionError(
            "--records",
            "used with a BFCL suite (decision suites: --json)",
            flags.records,
          );
        await evalDecisions(flags, ctx);
        ctx.setExitCode(EXIT.completed);
        return;
      }
      const chainOnly = [
        ["--compare", flags.compare.length > 0 ? flags.compare : undefined],
        ["--min-confidence", flags.minConfidence],
        ["--free-text", flags.freeText],
        ["--node", flags.node],
        ["--trust", flags.trust],
        ["--target-precision", flags.targetPrecision],
        ["--trust-out", flags.trustOut],
      ] as const;
      for (const [flag, value] of chainOnly)
        if (value !== undefined)
          throw new InvalidOptionError(flag, "used with a suite of decision records, not BFCL cases", value);
      if (flags.delegate.length > 1)
        throw new InvalidOptionError(
          "--delegate",
          "one backend for a BFCL suite (chains run on decision records)",
          flags.delegate.join(" "),
        );
      const suite = loadBfclSuite(flags.suite, flags.limit === undefined ? {} : { limit: flags.limit });
      const delegate = await createBackend(flags.delegate[0]!);
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
    });
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
