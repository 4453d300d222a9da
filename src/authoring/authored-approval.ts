import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { newRunId } from "../plan/run-plan.js";
import { systemClock } from "../runtime/clock.js";
import type { LeaseOptions } from "../store/run-lease.js";
import type { AuthoredApproval, RunOptionsRecord } from "../store/run-options-record.js";
import type { RunStore } from "../store/run-store.js";
import { holdRun, notFound } from "./repair-decisions.js";

/** What a model-written run records of where it came from and who approved it (`RunOptionsRecord.authored`). */
export type AuthoredRecord = NonNullable<RunOptionsRecord["authored"]>;

/**
 * The stop signal that keeps a model-written plan for a person's approval: a run started with it records the
 * plan (and `authored.approval: pending`) and runs no node; no resume runs it (`RUN_AWAITS_APPROVAL`).
 */
export function heldForApproval(): AbortSignal {
  return AbortSignal.abort(new Error("it awaits a person's approval"));
}

/** The approval a run records: who approved its side-effecting calls, and how. */
export function approvalOf(
  tools: readonly string[],
  how: "flag" | "tty" | "host",
  by: string | undefined,
  at: Date,
  from?: string,
): AuthoredApproval {
  return {
    status: "approved",
    tools: [...tools],
    how,
    at: at.toISOString(),
    ...(by ? { by } : {}),
    ...(from ? { from } : {}),
  };
}

/** Options of {@link approveAuthoredRun}. */
export interface ApproveAuthoredRunOptions {
  /** Who approves (a person's name), kept with the run. */
  by?: string;
  /** How: `flag` (a command's `--approve`), `tty` (answered on a terminal), `host` (a program). Default `host`. */
  how?: "flag" | "tty" | "host";
  /** How the pending run is held while it is decided. */
  lease?: Pick<LeaseOptions, "ttlMs" | "owner">;
  /** @internal */
  _internal?: { now?: () => number };
}

/** What {@link approveAuthoredRun} gives: the run to start, with the plan, inputs and record it starts with. */
export interface ApprovedAuthoredRun {
  /** The id of the run the approved plan runs as (the pending run stays, ended `cancelled`, pointing here). */
  runId: string;
  plan: unknown;
  inputs?: Record<string, unknown>;
  /** What the new run records: the pending one's origin, with the approval. */
  authored: AuthoredRecord;
}

/**
 * Approves a model-written plan kept for a person's approval (the toolkit's `plan_execute`, `deputy plan --run`
 * without a terminal or `--yes`): the pending run ends `cancelled` with `APPROVED` (it never runs), and the
 * caller starts the returned run with its own host — `runPlan(plan, { runId, inputs, meta: { authored } })` —
 * so the approval, who gave it and how are recorded in the run that calls the tools. A run that is not
 * pending approval, or was approved already, is refused.
 */
export async function approveAuthoredRun(
  store: RunStore,
  runId: string,
  options: ApproveAuthoredRunOptions = {},
): Promise<ApprovedAuthoredRun> {
  const now = () => new Date((options._internal?.now ?? systemClock)());
  const held = await holdRun(store, runId, options.lease);
  try {
    const summary = (await store.loadSummary(runId)) ?? notFound(runId);
    const { run } = summary;
    const authored = run.options.authored;
    if (authored?.approval?.status !== "pending")
      throw new InvalidOptionError("runId", "a model-written run awaiting approval", runId);
    if (run.error?.code === "APPROVED")
      throw new InvalidOptionError("runId", "a run not yet approved", runId);
    const at = now();
    const next = newRunId(at);
    const by = options.by?.trim() || undefined;
    await held.store.write(runId, [
      {
        kind: "status",
        status: "cancelled",
        updatedAt: at.toISOString(),
        error: { code: "APPROVED", message: `Approved${by ? ` by ${by}` : ""}; it runs as run ${next}.` },
      },
    ]);
    return {
      runId: next,
      plan: run.plan,
      ...(run.options.inputs ? { inputs: run.options.inputs } : {}),
      authored: {
        ...authored,
        approval: approvalOf(authored.approval.tools, options.how ?? "host", by, at, runId),
      },
    };
  } finally {
    await held.release();
  }
}
