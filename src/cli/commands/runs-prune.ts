import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { CliContext } from "../cli-context.js";
import { storeLabel } from "../run-setup.js";
import { openStore, storeLocation } from "../../compose/index.js";

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `45s`, `2w` in ms. */
export function parseAge(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (!m) throw new InvalidOptionError("--older-than", "an age such as 30d, 12h, 90m or 2w", text);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** `deputy runs prune --older-than AGE`: deletes runs (and everything stored with them) not updated since. */
export function registerRunsPrune(runs: Command, ctx: CliContext): void {
  runs
    .command("prune")
    .description("delete runs last updated longer ago than --older-than (runs still owned are kept)")
    .requiredOption("--older-than <age>", "e.g. 30d, 12h, 90m, 2w")
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--json", "print JSON")
    .action(async (_flags: unknown, command: Command) => {
      // `runs` has --store and --json too, and takes them wherever they appear: read both levels.
      const flags = command.optsWithGlobals<{ olderThan: string; store?: string; json?: boolean }>();
      const before = new Date(Date.now() - parseAge(flags.olderThan));
      const store = openStore(flags.store);
      try {
        const deleted = await store.prune(before);
        ctx.stdout(
          flags.json
            ? JSON.stringify({ deleted, before: before.toISOString() }) + "\n"
            : `pruned ${deleted} run${deleted === 1 ? "" : "s"} last updated before ${before.toISOString()} from ${storeLabel(storeLocation(flags.store))}\n`,
        );
      } finally {
        await store.close();
      }
    });
}
