import { existsSync } from "node:fs";
import { RunError } from "../errors/run-error.js";
import type { ResumeOptions } from "./run.js";
import { startResume, type PlanRunEvent } from "./start-plan.js";
import type { RunManifest } from "../plan/run-manifest.js";
import { PostgresRunStore } from "../store/postgres-run-store.js";
import { acquireRunLease, newLeaseOwner, type LeaseOptions } from "../store/run-lease.js";
import type { RunRecord } from "../store/run-state.js";
import type { RunStore } from "../store/run-store.js";
import { readPlanFile } from "./read-plan-file.js";
import { lostSecret } from "../store/redact-recorded-spec.js";
import { toolsForResume } from "./resume-tools.js";
import { noticeWithoutWorkers, setupRun, type RunFlags } from "./run-setup.js";

/** What a resume may set otherwise than the run was started with (`deputy resume` flags, the console's `--tools`). */
export interface ResumeOverrides extends Omit<RunFlags, "store"> {
  /** The plan file to check against the run's. Default: the file the run started from, when it is still there. */
  plan?: string;
  /**
   * Load the tool sources the run record names (`deputy resume --recorded-tools`) when `tools` is not given:
   * what the record says is imported and started, so it is told to `announce` first. Default false: a run that
   * had tools is refused (`RESUME_INVALID`) unless `tools` names them again.
   */
  recordedTools?: boolean;
}

/** Options of {@link ClaimedResume.resume}: the overrides, and how the caller follows and stops the run. */
export interface ResumeSetupOptions
  extends ResumeOverrides, Pick<ResumeOptions, "stop" | "signal" | "onEvent"> {
  /**
   * Told each event of the resumed run as it happens: numbered on from the run's attempt before, redacted, with
   * the delegate's proposals (see `startResume`). A listener's failure does not reach the run.
   */
  watch?: (event: PlanRunEvent) => void;
  /** Told a line to show when a distributed run's units will wait, because no `deputy worker` is alive. */
  notice?: (text: string) => void;
  /**
   * With `recordedTools`: told, before anything is loaded, which modules will be imported and which commands
   * started (terminal-safe text). Default: `notice`.
   */
  announce?: (text: string) => void;
}

/** A run this process owns, ready to be resumed as it was started (see {@link claimResume}). */
export interface ClaimedResume {
  /** The run's header as stored when it was claimed. */
  readonly run: RunRecord;
  /** True when the run was started distributed: its units go to `deputy worker`s again. */
  readonly distributed: boolean;
  /**
   * Rebuilds the run (its delegates, trace file and plan file, each unless `options` says otherwise; a
   * distributed run's units as jobs for the workers), resumes it, and gives up the lease. Call it once. Its tools
   * and the side-effect flag come from `options` only, never from the store: the record's tool sources are not
   * run (unless `recordedTools`), its tool definitions are compared with the given tools' (`TOOLS_CHANGED`), and a
   * record that says side effects were allowed is refused unless `options` allows them too (see docs/security.md).
   */
  resume(options?: ResumeSetupOptions): Promise<RunManifest>;
  /** Gives up the lease without resuming (idempotent; `resume` does it itself). */
  release(): Promise<void>;
}

/** Options of {@link claimResume}. */
export interface ClaimOptions {
  /** How to hold the run (`--lease-ttl`, `--wait`). Default: refuse at once when another process owns it. */
  lease?: LeaseOptions;
  /** Stops a `wait` for the owner. */
  signal?: AbortSignal;
  /** The store as a message names it. Default "the store". */
  storeLabel?: string;
}

/**
 * The one resume set-up, shared by `deputy resume` and the console: finds the run (`RUN_NOT_FOUND`) and takes
 * its lease before anything is loaded, so a run another process owns is refused the same way from both
 * (`RunLeasedError`, `RUN_LEASED`), or waited for with `lease.wait`. The lease is held from here until the
 * resume ends; the engine's own claim, by the same owner, continues it.
 */
export async function claimResume(
  store: RunStore,
  runId: string,
  options: ClaimOptions = {},
): Promise<ClaimedResume> {
  const summary = await store.loadSummary(runId);
  if (!summary)
    throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${options.storeLabel ?? "the store"}.`, {
      runId,
    });
  const lease: LeaseOptions = { ...options.lease, owner: options.lease?.owner ?? newLeaseOwner() };
  const held = await acquireRunLease(store, runId, lease, options.signal);
  const run = summary.run;
  const meta = run.options;
  const distributed = meta.distributed === true;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await held.release();
  };
  return {
    run,
    distributed,
    release,
    async resume(o: ResumeSetupOptions = {}) {
      try {
        const tools = toolsForResume(runId, meta, o);
        if (meta.allowDelegateSideEffects === true && o.allowDelegateSideEffects !== true)
          throw new RunError(
            "RESUME_INVALID",
            `Run ${runId} records that delegates were allowed side effects; a resume allows them only when told again: pass --allow-delegate-side-effects.`,
            { runId },
          );
        if (!o.delegate && meta.delegates?.some(lostSecret))
          throw new RunError(
            "RESUME_INVALID",
            `Run ${runId}'s record keeps its delegate specs without their secrets (shown as ***): pass the same --delegate again.`,
            { runId },
          );
        if (tools.recorded) (o.announce ?? o.notice ?? (() => {}))(tools.announcement);
        const { options: runOptions, close } = await setupRun({
          tools: tools.sources,
          // The recorded directory only for recorded stdio servers (announced); given ones start here.
          ...(tools.recorded && meta.cwd ? { cwd: meta.cwd } : {}),
          delegate: o.delegate ?? (meta.delegates as string[] | undefined),
          traces: o.traces ?? (meta.traces as string | undefined),
          allowDelegateSideEffects: o.allowDelegateSideEffects === true,
          // Never recorded: a resume is given the headers again, as it is given the tools.
          ...(o.mcpHeader ? { mcpHeader: o.mcpHeader } : {}),
          ...(o.mcpHeadersFile !== undefined ? { mcpHeadersFile: o.mcpHeadersFile } : {}),
        });
        try {
          const planPath = o.plan ?? (meta.plan as string | undefined);
          const plan = planPath && existsSync(planPath) ? readPlanFile(planPath) : undefined;
          const dispatcher = distributed ? await dispatcherFor(store, runId) : undefined;
          try {
            if (dispatcher) await noticeWithoutWorkers(dispatcher, o.notice ?? (() => {}));
            const run = startResume(runId, {
              ...runOptions,
              store,
              // The owner that holds the lease now: the engine's claim renews it instead of refusing.
              lease: { owner: lease.owner!, ...(lease.ttlMs === undefined ? {} : { ttlMs: lease.ttlMs }) },
              ...(dispatcher ? { distributed: dispatcher } : {}),
              ...(plan !== undefined ? { plan } : {}),
              ...(o.stop ? { stop: o.stop } : {}),
              ...(o.signal ? { signal: o.signal } : {}),
              ...(o.onEvent ? { onEvent: o.onEvent } : {}),
            });
            if (o.watch)
              for await (const event of run.events()) {
                try {
                  o.watch(event);
                } catch {
                  // A watcher's failure must not stop the run or lose its manifest.
                }
              }
            return await run.manifest;
          } finally {
            await dispatcher?.close();
          }
        } finally {
          await close();
        }
      } finally {
        await release();
      }
    },
  };
}

/** A distributed run goes on distributed: its units are jobs for the workers, on the run's PostgreSQL store. */
async function dispatcherFor(store: RunStore, runId: string) {
  if (!(store instanceof PostgresRunStore))
    throw new RunError(
      "RESUME_INVALID",
      `Run ${runId} was started distributed; resume it on its PostgreSQL store, where its workers are.`,
      { runId },
    );
  // Loaded only for a distributed run: Graphile Worker is not needed otherwise.
  const { JobDispatcher } = await import("../distributed/job-dispatcher.js");
  return new JobDispatcher(store);
}
