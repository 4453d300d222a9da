import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import { buildManifest } from "../../plan/run-manifest.js";
import type { CliContext } from "../cli-context.js";
import { renderManifest } from "../render-manifest.js";
import { DEFAULT_STORE, openStore } from "../run-setup.js";

export function registerRuns(program: Command, ctx: CliContext): void {
  program
    .command("runs [runId]")
    .description("list runs, or show one run's manifest")
    .option("--store <file>", "run store (SQLite file)", DEFAULT_STORE)
    .option("--limit <n>", "how many runs to list", "20")
    .option("--json", "print JSON")
    .action(async (runId: string | undefined, flags: { store: string; limit: string; json?: boolean }) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new InvalidOptionError("--limit", "a whole number ≥ 1", flags.limit);
      if (!runId && !existsSync(flags.store)) {
        // Listing an empty place is an answer, not an error; and it must not create a store.
        ctx.stdout(flags.json ? "[]\n" : `no runs in ${flags.store}\n`);
        return;
      }
      const store = openStore(flags.store, { mustExist: true });
      try {
        if (runId) {
          const stored = await store.load(runId);
          if (!stored) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${flags.store}.`, { runId });
          const raw = (stored.run.plan as { nodes?: { id: string; type?: string }[] }).nodes ?? [];
          const manifest = buildManifest(stored, raw);
          ctx.stdout(
            flags.json ? JSON.stringify(manifest, null, 2) + "\n" : renderManifest(manifest, flags.store),
          );
          return;
        }
        const runs = await store.list({ limit });
        if (flags.json) {
          ctx.stdout(
            JSON.stringify(
              runs.map(({ plan: _plan, ...r }) => r),
              null,
              2,
            ) + "\n",
          );
          return;
        }
        if (runs.length === 0) ctx.stdout(`no runs in ${flags.store}\n`);
        for (const r of runs)
          ctx.stdout(`${r.runId}  ${r.status.padEnd(10)} ${r.createdAt}  ${r.planName}\n`);
      } finally {
        await store.close();
      }
    });
}
