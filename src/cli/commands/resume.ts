import type { Command } from "commander";
import type { RunManifest } from "../../plan/run-manifest.js";
import type { RunStore } from "../../store/run-store.js";
import type { CliContext } from "../cli-context.js";
import { createProgress } from "../progress.js";
import { eventLine, printRunResult } from "../render-manifest.js";
import { leaseFrom, storeHint, storeLabel } from "../run-setup.js";
import { withGracefulStop } from "../graceful-stop.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";
import { mcpHeadersOf } from "../../mcp/mcp-headers.js";
import { openStore, storeLocation, type RunFlags, claimResume } from "../../compose/index.js";

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
    .option(
      "--recorded-tools",
      "without --tools: load the tool sources the run's record names (modules imported, commands started; listed first)",
    )
    .option("--json", "print the manifest as JSON on stdout")
    .option(
      "--events",
      "stream the run's events as JSON lines on stdout, numbered on from the run's last (with --json the manifest is the last line)",
    )
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
          events?: boolean;
          recordedTools?: boolean;
          wait?: boolean;
          leaseTtl?: string;
          grace?: string;
        },
      ) => {
        const grace = graceSeconds(flags.grace);
        const lease = leaseFrom(flags);
        mcpHeadersOf(flags); // Bad headers are refused before the run is claimed (they are read again then).
        const store = openStore(flags.store, { mustExist: true });
        try {
          const manifest = await resumeFromFlags(ctx, store, runId, flags, { lease, grace });
          printRunResult(ctx, manifest, flags.json, storeHint(flags.store), flags.tools, flags.events);
        } finally {
          await store.close();
        }
      },
    );
}

/**
 * Resumes a run from the command line, as `deputy resume` does and `deputy repair` does for the child it applies:
 * claims the run (its lease first), rebuilds it with the flags given (its tools and side-effect flag only from them,
 * never from the store), and runs it under
 * the graceful stop, with live progress on a terminal.
 */
export async function resumeFromFlags(
  ctx: CliContext,
  store: RunStore,
  runId: string,
  flags: RunFlags & { plan?: string; json?: boolean; events?: boolean; recordedTools?: boolean },
  { lease, grace }: { lease: ReturnType<typeof leaseFrom>; grace: number },
): Promise<RunManifest> {
  const progress = ctx.isTTY && !flags.json && !flags.events ? createProgress(ctx.rawStderr) : undefined;
  const manifest = await withGracefulStop(ctx, grace, async (stops) => {
    // The set-up the console shares: the run's lease first, then the run rebuilt as it was started.
    const claimed = await claimResume(store, runId, {
      lease,
      signal: stops.signal,
      storeLabel: storeLabel(storeLocation(flags.store)),
    });
    return claimed.resume({
      ...(flags.tools !== undefined ? { tools: flags.tools } : {}),
      ...(flags.delegate !== undefined ? { delegate: flags.delegate } : {}),
      ...(flags.traces !== undefined ? { traces: flags.traces } : {}),
      ...(flags.allowDelegateSideEffects !== undefined
        ? { allowDelegateSideEffects: flags.allowDelegateSideEffects }
        : {}),
      ...(flags.plan !== undefined ? { plan: flags.plan } : {}),
      ...(flags.recordedTools ? { recordedTools: true } : {}),
      ...(flags.mcpHeader ? { mcpHeader: flags.mcpHeader } : {}),
      ...(flags.mcpHeadersFile !== undefined ? { mcpHeadersFile: flags.mcpHeadersFile } : {}),
      stop: stops.stop,
      signal: stops.signal,
      notice: ctx.stderr,
      ...(progress ? { onEvent: progress.onEvent } : {}),
      ...(flags.events ? { watch: (event) => ctx.stdout(eventLine(event)) } : {}),
    });
  });
  progress?.done();
  return manifest;
}
