import { existsSync } from "node:fs";
import type { Command } from "commander";
import { RunError } from "../../errors/run-error.js";
import { resumeRun } from "../../index.js";
import type { CliContext } from "../cli-context.js";
import { createProgress } from "../progress.js";
import { readPlanFile } from "../read-plan-file.js";
import { exitCodeFor, renderManifest } from "../render-manifest.js";
import { DEFAULT_STORE, openStore, setupRun, type RunFlags } from "../run-setup.js";
import { withGracefulStop } from "../graceful-stop.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";

export function registerResume(program: Command, ctx: CliContext): void {
  withGraceFlag(
    withRunFlags(program.command("resume <runId>").description("continue a run from its last checkpoint")),
  )
    .option("--store <file>", "run store (SQLite file)", DEFAULT_STORE)
    .option(
      "--plan <file>",
      "the plan file to check against the run's (default: the file the run started from)",
    )
    .option("--json", "print the manifest as JSON on stdout")
    .action(async (runId: string, flags: RunFlags & { plan?: string; json?: boolean; grace?: string }) => {
      graceSeconds(flags.grace);
      const store = openStore(flags.store, { mustExist: true });
      try {
        const stored = await store.load(runId);
        if (!stored)
          throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${flags.store ?? DEFAULT_STORE}.`, {
            runId,
          });
        const meta = stored.run.options;
        // Rebuild the run as it was started, unless flags say otherwise.
        const { options, close } = await setupRun({
          tools: flags.tools ?? (meta.tools as string | undefined),
          delegate: flags.delegate ?? (meta.delegates as string[] | undefined),
          traces: flags.traces ?? (meta.traces as string | undefined),
          allowDelegateSideEffects:
            flags.allowDelegateSideEffects ?? (meta.allowDelegateSideEffects as boolean | undefined),
        });
        const planPath = flags.plan ?? (meta.plan as string | undefined);
        const plan = planPath && existsSync(planPath) ? readPlanFile(planPath) : undefined;
        const progress = ctx.isTTY && !flags.json ? createProgress(ctx.rawStderr) : undefined;
        try {
          const manifest = await withGracefulStop(ctx, graceSeconds(flags.grace), (stops) =>
            resumeRun(runId, {
              ...options,
              store,
              stop: stops.stop,
              signal: stops.signal,
              ...(plan !== undefined ? { plan } : {}),
              ...(progress ? { onEvent: progress.onEvent } : {}),
            }),
          );
          progress?.done();
          ctx.stdout(
            flags.json ? JSON.stringify(manifest, null, 2) + "\n" : renderManifest(manifest, flags.store),
          );
          ctx.setExitCode(exitCodeFor(manifest.status));
        } finally {
          await close();
        }
      } finally {
        await store.close();
      }
    });
}
