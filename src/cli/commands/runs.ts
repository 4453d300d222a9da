import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import { buildManifest } from "../../plan/run-manifest.js";
import type { CliContext } from "../cli-context.js";
import { clip, renderManifest } from "../render-manifest.js";
import { storeHint, storeLabel } from "../run-setup.js";
import { registerRunsPrune } from "./runs-prune.js";
import type { RunRecord } from "../../store/run-state.js";
import { repairSummary, runOrigin, type RunLineage } from "../../authoring/run-origin.js";
import { isPostgresUrl, openStore, storeLocation } from "../../compose/index.js";

export function registerRuns(program: Command, ctx: CliContext): void {
  const runs = program
    .command("runs [runId]")
    .description("list runs, or show one run's manifest")
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--limit <n>", "how many runs to list", "20")
    .option("--json", "print JSON")
    .action(async (runId: string | undefined, flags: { store?: string; limit: string; json?: boolean }) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new InvalidOptionError("--limit", "a whole number ≥ 1", flags.limit);
      const location = storeLocation(flags.store);
      if (!runId && typeof location === "string" && !isPostgresUrl(location) && !existsSync(location)) {
        // Listing an empty place is an answer, not an error; and it must not create a store.
        ctx.stdout(flags.json ? "[]\n" : `no runs in ${location}\n`);
        return;
      }
      const store = openStore(flags.store, { mustExist: true });
      try {
        if (runId) {
          const stored = await store.load(runId);
          if (!stored)
            throw new RunError(
              "RUN_NOT_FOUND",
              `No run "${runId}" in ${storeLabel(storeLocation(flags.store))}.`,
              { runId },
            );
          const raw = (stored.run.plan as { nodes?: { id: string; type?: string }[] }).nodes ?? [];
          const manifest = buildManifest(stored, raw);
          const { authored, lineage } = await runOrigin(store, stored.run);
          ctx.stdout(
            flags.json
              ? JSON.stringify(
                  { ...manifest, ...(authored ? { authored } : {}), ...(lineage ? { lineage } : {}) },
                  null,
                  2,
                ) + "\n"
              : renderManifest(manifest, storeHint(flags.store)) +
                  (authored
                    ? `written by ${authored.model} for: ${clip(authored.objective.replace(/\s+/g, " ").trim(), 300)}\n`
                    : "") +
                  lineageLines(stored.run, lineage?.madeBy),
          );
          return;
        }
        const runs = await store.list({ limit });
        if (flags.json) {
          ctx.stdout(
            JSON.stringify(
              runs.map(({ plan: _plan, repairs, ...r }) =>
                repairs ? { ...r, repairs: repairs.map(repairSummary) } : r,
              ),
              null,
              2,
            ) + "\n",
          );
          return;
        }
        if (runs.length === 0) ctx.stdout(`no runs in ${storeLabel(storeLocation(flags.store))}\n`);
        for (const r of runs)
          ctx.stdout(`${r.runId}  ${r.status.padEnd(10)} ${r.createdAt}  ${r.planName}${lineageNote(r)}\n`);
      } finally {
        await store.close();
      }
    });
  registerRunsPrune(runs, ctx);
}

/** The listing's lineage note: `← repair of PARENT` on a child, `→ CHILD` on a repaired run, a pending repair. */
function lineageNote(run: RunRecord): string {
  const notes: string[] = [];
  if (run.parentRunId) notes.push(`← repair of ${run.parentRunId}`);
  for (const r of run.repairs ?? []) {
    if (r.childRunId && (r.status === "applied" || r.status === "approved")) notes.push(`→ ${r.childRunId}`);
    else if (r.status === "pending") notes.push(`repair ${r.id} pending`);
  }
  return notes.length ? `  ${notes.join("  ")}` : "";
}

/** Lines under a run's manifest: where it came from and what repairs were asked for it. */
function lineageLines(run: RunRecord, made: RunLineage["madeBy"]): string {
  const lines: string[] = [];
  if (run.parentRunId)
    lines.push(
      `repair of run ${run.parentRunId}${run.rootRunId && run.rootRunId !== run.parentRunId ? ` (lineage root ${run.rootRunId})` : ""}`,
    );
  if (made) {
    lines.push(
      `  by repair ${made.id}${made.model ? ` from ${made.model}` : ""}: replaced ${made.nodes.join(", ") || "no node"} (${made.diff?.length ?? 0} change${made.diff?.length === 1 ? "" : "s"}; --json lists them)`,
    );
  }
  for (const r of run.repairs ?? [])
    lines.push(
      `repair ${r.id} (round ${r.round}): ${r.status}${r.childRunId ? ` → run ${r.childRunId}` : ""}`,
    );
  return lines.length ? `${lines.join("\n")}\n` : "";
}
