import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { storeLabel } from "../run-setup.js";
import { openStore, storeLocation } from "../../compose/index.js";
import { toolCacheScope } from "../../store/cache-entry.js";

/**
 * `deputy cache clear [--tool NAME] [--expired]`: deletes entries of the run store's cache (tools' results,
 * delegates' proposals), all of them or one tool's, expired or not. A store that does not exist is not created.
 */
export function registerCache(program: Command, ctx: CliContext): void {
  const cache = program
    .command("cache")
    .description("manage the run store's cache of tool results and proposals");
  cache
    .command("clear")
    .description("delete cached tool results and proposals from the run store")
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--tool <name>", "only this tool's cached results")
    .option("--expired", "only entries that have expired")
    .option("--json", "print JSON")
    .action(async (flags: { store?: string; tool?: string; expired?: boolean; json?: boolean }) => {
      const store = openStore(flags.store, { mustExist: true });
      try {
        const deleted = await store.clearCache({
          ...(flags.tool === undefined ? {} : { scope: toolCacheScope(flags.tool) }),
          ...(flags.expired ? { expiredAt: Date.now() } : {}),
        });
        const what = `${flags.expired ? "expired " : ""}cache entr${deleted === 1 ? "y" : "ies"}`;
        ctx.stdout(
          flags.json
            ? JSON.stringify({ deleted, ...(flags.tool === undefined ? {} : { tool: flags.tool }) }) + "\n"
            : `cleared ${deleted} ${what}${flags.tool === undefined ? "" : ` of tool "${flags.tool}"`} from ${storeLabel(storeLocation(flags.store))}\n`,
        );
      } finally {
        await store.close();
      }
    });
}
