import { existsSync } from "node:fs";
import type { Command } from "commander";
import { RunError } from "../../errors/run-error.js";
import { JobDispatcher } from "../../distributed/job-dispatcher.js";
import { PostgresRunStore } from "../../store/postgres-run-store.js";
import { resumeRun } from "../../index.js";
import type { CliContext } from "../cli-context.js";
import { createProgress } from "../progress.js";
import { readPlanFile } from "../read-plan-file.js";
import { printRunResult } from "../render-manifest.js";
import {
  leaseFrom,
  noticeWithoutWorkers,
  openStore,
  setupRun,
  storeHint,
  storeLabel,
  storeLocation,
  type RunFlags,
} from "../run-setup.js";
import { withGracefulStop } from "../graceful-stop.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";

export function registerResume(program: Command, ctx: CliContext): void {
  withGraceFlag(
    withRunFlags(program.command("resume <runId>").description("continue a run from its last checkpoint")),
  )
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option(
      "--plan <file>",
      "the plan file to check against the run's (default: the file the run started from)",
    )
    .option("--json", "print the manifest as JSON on stdout")
    .option("--wait", "when another process owns the run, wait until it is free instead of exiting 5")
    .option(
      "--lease-ttl <seconds>",
      "lease length: a run whose owner died is free this long after its last heartbeat (default 10)",
    )
    .action(
      async (
        runId: string,
        flags: RunFlags & {
          plan?: string;
          json?: boolean;
          wait?: boolean;
          leaseTtl?: string;
          grace?: string;
        },
      ) => {
        const grace = graceSeconds(flags.grace);
        const lease = leaseFrom(flags);
        const store = openStore(flags.store, { mustExist: true });
        try {
          const stored = await store.load(runId);
          if (!stored)
            throw new RunError(
              "RUN_NOT_FOUND",
              `No run "${runId}" in ${storeLabel(storeLocation(flags.store))}.`,
              {
                runId,
              },
            );
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
          // A distributed run goes on distributed: its units are jobs for the workers.
          const distributed =
            meta.distributed === true && store instanceof PostgresRunStore
              ? new JobDispatcher(store)
              : undefined;
          if (distributed) await noticeWithoutWorkers(distributed, ctx.stderr);
          try {
            const manifest = await withGracefulStop(ctx, grace, (stops) =>
              resumeRun(runId, {
                ...options,
                store,
                lease,
                stop: stops.stop,
                signal: stops.signal,
                ...(distributed ? { distributed } : {}),
                ...(plan !== undefined ? { plan } : {}),
                ...(progress ? { onEvent: progress.onEvent } : {}),
              }),
            );
            progress?.done();
            printRunResult(ctx, manifest, flags.json, storeHint(flags.store));
          } finally {
            await distributed?.close();
            await close();
          }
        } finally {
          await store.close();
        }
      },
    );
}
