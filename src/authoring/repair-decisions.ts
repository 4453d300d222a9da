import { RepairError } from "../errors/repair-error.js";
import { RunError } from "../errors/run-error.js";
import { RunLeasedError } from "../errors/run-leased-error.js";
import { newRunId } from "../plan/run-plan.js";
import { systemClock } from "../runtime/clock.js";
import { acquireRunLease, type HeldLease, type LeaseOptions } from "../store/run-lease.js";
import type { RunOptionsRecord } from "../store/run-options-record.js";
import type { RepairRecord, RunRecord } from "../store/run-state.js";
import type { RunStore } from "../store/run-store.js";
import { childRun } from "./repair-child.js";

// Deciding a repair that repairRun (repair-run.ts) recorded as pending: approve it into a child run, reject it,
// or list the pending ones; and the run lease both hold while they write.

/** Options of {@link approveRepair} and {@link rejectRepair}. */
export interface RepairDecisionOptions {
  /** The repair to decide. Default: the run's pending one. */
  repairId?: string;
  /** Who decided (a person's name), kept with the repair. */
  by?: string;
  /** How the run is held while deciding. */
  lease?: Pick<LeaseOptions, "ttlMs" | "owner">;
  /** @internal */
  _internal?: { now?: () => number; newRunId?: () => string };
}

/** Options of {@link approveRepair}. */
export interface ApproveRepairOptions extends RepairDecisionOptions {
  /**
   * Run options the child records instead of the parent's (say, the tools module the repair was checked
   * against, when it is not the one the parent ran with). Default: the parent's, less its plan file.
   */
  options?: Partial<Omit<RunOptionsRecord, "version">>;
}

/** What {@link approveRepair} returns: the applied repair and the child run made from it (not yet run). */
export interface ApprovedRepair {
  repair: RepairRecord;
  childRunId: string;
  child: RunRecord;
}

/**
 * Applies a pending repair as a **child run** of the repaired one (`parentRunId`, `rootRunId`): the patched
 * plan, with every completed node and item of the parent copied in (see `repair-child.ts`), created in one
 * transaction. The child is returned `interrupted`, not yet run: `resumeRun(childRunId, …)` runs only the
 * replaced nodes and what depends on them. Idempotent under a crash: the child's id is recorded with the
 * repair before the child is made, so approving again finishes the same child instead of making a second one.
 */
export async function approveRepair(
  store: RunStore,
  runId: string,
  options: ApproveRepairOptions = {},
): Promise<ApprovedRepair> {
  const now = () => new Date((options._internal?.now ?? systemClock)());
  const held = await holdRun(store, runId, options.lease);
  try {
    const parent = (await store.load(runId)) ?? notFound(runId);
    const found = decidable(parent.run, options.repairId, ["pending", "approved"]);
    let repair: RepairRecord = {
      ...found,
      status: "approved",
      childRunId: found.childRunId ?? options._internal?.newRunId?.() ?? newRunId(now()),
      decidedAt: found.decidedAt ?? now().toISOString(),
      ...(options.by !== undefined ? { decidedBy: options.by } : {}),
      updatedAt: now().toISOString(),
    };
    await held.store.write(runId, [{ kind: "repair", repair }]);
    const childRunId = repair.childRunId!;
    const { run, initial } = childRun(
      parent,
      repair as RepairRecord & { plan: unknown; childRunId: string },
      now(),
      options.options,
    );
    try {
      await held.store.createRun(run, initial);
    } catch (error) {
      // Made by an approval that stopped before recording it: the same child, complete (one transaction).
      if (!(RunError.isInstance(error) && error.code === "RUN_EXISTS")) throw error;
    }
    repair = { ...repair, status: "applied", updatedAt: now().toISOString() };
    await held.store.write(runId, [{ kind: "repair", repair }]);
    const child = (await store.loadSummary(childRunId))!.run;
    return { repair, childRunId, child };
  } finally {
    await held.release();
  }
}

/** Options of {@link rejectRepair}. */
export interface RejectRepairOptions extends RepairDecisionOptions {
  /** Why, kept with the repair. */
  reason?: string;
}

/**
 * Rejects a pending repair: it is kept, marked `rejected` (with who and why), and changes nothing else. Its
 * round stays spent; another repair may be asked while the lineage has rounds left.
 */
export async function rejectRepair(
  store: RunStore,
  runId: string,
  options: RejectRepairOptions = {},
): Promise<RepairRecord> {
  const now = () => new Date((options._internal?.now ?? systemClock)());
  const held = await holdRun(store, runId, options.lease);
  try {
    const run = ((await store.loadSummary(runId)) ?? notFound(runId)).run;
    const found = decidable(run, options.repairId, ["pending"]);
    const at = now().toISOString();
    const repair: RepairRecord = {
      ...found,
      status: "rejected",
      decidedAt: at,
      updatedAt: at,
      ...(options.by !== undefined ? { decidedBy: options.by } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    };
    await held.store.write(runId, [{ kind: "repair", repair }]);
    return repair;
  } finally {
    await held.release();
  }
}

/** A repair awaiting a decision, with its run (what an inbox lists beside escalations). */
export interface PendingRepair {
  runId: string;
  planName: string;
  repair: RepairRecord;
}

/** The repairs awaiting a decision in a store, newest run first (of the `limit` newest runs; default all). */
export async function pendingRepairs(
  store: RunStore,
  options: { limit?: number } = {},
): Promise<PendingRepair[]> {
  const runs = await store.list(options.limit === undefined ? {} : { limit: options.limit });
  return runs.flatMap((run) =>
    (run.repairs ?? [])
      .filter((r) => r.status === "pending")
      .map((repair) => ({ runId: run.runId, planName: run.planName, repair })),
  );
}

/** The repair a decision applies to: the one named, or the run's only one in `statuses`. */
function decidable(run: RunRecord, repairId: string | undefined, statuses: RepairRecord["status"][]) {
  const runId = run.runId;
  const repairs = run.repairs ?? [];
  const found =
    repairId !== undefined
      ? repairs.find((r) => r.id === repairId)
      : (repairs.find((r) => statuses.includes(r.status)) ?? repairs.find((r) => r.status === "applied"));
  if (!found)
    throw new RepairError(
      "NO_PENDING_REPAIR",
      repairId !== undefined
        ? `Run ${runId} has no repair ${repairId}.`
        : `Run ${runId} has no repair awaiting a decision.`,
      { runId },
    );
  if (found.status === "applied")
    throw new RepairError(
      "ALREADY_REPAIRED",
      `Repair ${found.id} of run ${runId} was already applied as run ${found.childRunId} (resume that run to continue it).`,
      { runId },
    );
  if (!statuses.includes(found.status))
    throw new RepairError("NO_PENDING_REPAIR", `Repair ${found.id} of run ${runId} is ${found.status}.`, {
      runId,
    });
  return found;
}

/** Takes the run's lease; another holder means a repair, an approval or a resume is under way. */
export async function holdRun(
  store: RunStore,
  runId: string,
  lease: Pick<LeaseOptions, "ttlMs" | "owner"> | undefined,
  signal?: AbortSignal,
): Promise<HeldLease> {
  try {
    return await acquireRunLease(store, runId, { ...lease, wait: false }, signal);
  } catch (error) {
    if (RunLeasedError.isInstance(error))
      throw new RepairError(
        "REPAIR_IN_PROGRESS",
        `Run ${runId} is held by ${error.holder.owner}: a repair or resume of it is in progress.`,
        { runId, cause: error },
      );
    throw error;
  }
}

/** The error for a run the store does not hold. */
export function notFound(runId: string): never {
  throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
}
