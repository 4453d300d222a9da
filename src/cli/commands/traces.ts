import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { readTraces } from "../../traces/read-traces.js";
import { tracesToChat } from "../../traces/trace-export.js";
import { formatTraceStats, traceStats } from "../../traces/trace-stats.js";
import type { CliContext } from "../cli-context.js";

const SOURCES = ["delegate", "agent", "person"] as const;

/** `deputy traces stats FILE [--json]` and `deputy traces export FILE --format chat [--out F]`. */
export function registerTraces(program: Command, ctx: CliContext): void {
  const traces = program
    .command("traces")
    .description("summarise delegate traces or export them as fine-tuning data");

  traces
    .command("stats <file>")
    .description("verdict counts, acceptance rate and latency percentiles per node and backend")
    .option("--json", "print JSON")
    .action((file: string, flags: { json?: boolean }) => {
      const { traces: list, invalidLines } = readTraces(file);
      const stats = traceStats(list);
      if (flags.json) {
        ctx.stdout(JSON.stringify({ ...stats, invalidLines }, null, 2) + "\n");
        return;
      }
      ctx.stdout(formatTraceStats(stats));
      if (invalidLines > 0)
        ctx.stderr(`${invalidLines} line(s) of ${file} were not traces and were ignored\n`);
    });

  traces
    .command("export <file>")
    .description("write accepted proposals as chat-format fine-tuning JSONL")
    .requiredOption("--format <format>", "output format (chat)")
    .option("--out <file>", "write here instead of stdout")
    .option("--source <list>", "comma-separated sources to keep: delegate, agent, person", SOURCES.join(","))
    .option("--keep-redacted", "keep examples whose text was redacted or cut")
    .action(
      (file: string, flags: { format: string; out?: string; source: string; keepRedacted?: boolean }) => {
        if (flags.format !== "chat") throw new InvalidOptionError("--format", '"chat"', flags.format);
        const sources = flags.source.split(",").map((s) => s.trim());
        for (const s of sources) {
          if (!(SOURCES as readonly string[]).includes(s))
            throw new InvalidOptionError("--source", SOURCES.join(", "), s);
        }
        const { traces: list } = readTraces(file);
        const { examples, skipped } = tracesToChat(list, {
          sources: sources as (typeof SOURCES)[number][],
          keepRedacted: flags.keepRedacted === true,
        });
        const text = examples.map((e) => JSON.stringify(e)).join("\n") + (examples.length ? "\n" : "");
        if (flags.out) writeFileSync(flags.out, text);
        else ctx.stdout(text);
        const left = Object.entries(skipped)
          .filter(([, n]) => n > 0)
          .map(([why, n]) => `${n} ${why}`)
          .join(", ");
        ctx.stderr(
          `${examples.length} example(s)${flags.out ? ` written to ${flags.out}` : ""}${left ? `; left out: ${left}` : ""}\n`,
        );
      },
    );
}
