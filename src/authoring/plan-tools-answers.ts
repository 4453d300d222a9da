import { DeputyError } from "../errors/deputy-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { RunManifest } from "../plan/run-manifest.js";
import type { NodeRecord, RunStatus } from "../store/run-state.js";
import type { RunSummary } from "../store/run-store.js";

/**
 * The refusal codes of the plan toolkit, as the calling model reads them (`{ error, message }`): each names what
 * the model can do about it.
 */
export const PLAN_TOOL_REFUSALS = [
  /** The arguments do not fit the tool's schema, or two that exclude each other were given. */
  "invalid_arguments",
  /** No plan of that name among the toolkit's plans. */
  "unknown_plan",
  /** The plan (given, named or written for the objective) has validation errors; `issues` lists them. */
  "plan_invalid",
  /** The inputs do not fit the plan's declared `inputs`; `problems` lists them. */
  "invalid_inputs",
  /** An objective or a repair needs a model, and the toolkit was given none. */
  "no_model",
  /** The model could not be asked (the provider failed, timed out). */
  "model_failed",
  /** No run of that id in the store. */
  "run_not_found",
  /** The run is going on (here, or in another process that holds it); ask its status later. */
  "run_in_progress",
  /** The run completed: there is nothing to resume or repair. */
  "run_completed",
  /** The run's plan changed since it started; start a new run instead. */
  "plan_changed",
  /** The repair was refused (the run is not eligible, its rounds are used up, the delta is invalid…). */
  "repair_refused",
  /** The run is a model-written plan awaiting a person's approval: nothing of it runs until a person approves it. */
  "approval_pending",
  /** Something else went wrong (the store failed…); `message` says what. */
  "failed",
] as const;

/** One refusal code of the plan toolkit. */
export type PlanToolRefusalCode = (typeof PLAN_TOOL_REFUSALS)[number];

/** What a plan tool answers instead of throwing: plain data the calling model can act on. */
export interface PlanToolRefusal {
  error: PlanToolRefusalCode;
  message: string;
  [detail: string]: unknown;
}

/** A refusal, with details the model may use (issues, problems, the plans there are). */
export function refusal(
  error: PlanToolRefusalCode,
  message: string,
  details: Record<string, unknown> = {},
): PlanToolRefusal {
  return { error, message, ...details };
}

/** deputy's errors as refusals by their code; anything else is `failed` with its message. */
export function refusalOf(error: unknown): PlanToolRefusal {
  const message = error instanceof Error ? error.message : String(error);
  if (DeputyError.isInstance(error)) {
    switch (error.code) {
      case "RUN_NOT_FOUND":
        return refusal("run_not_found", message);
      case "RUN_AWAITS_APPROVAL":
        return refusal("approval_pending", message);
      case "RUN_LEASED":
      case "RESUME_RUNNING":
        return refusal("run_in_progress", message);
      case "PLAN_FINGERPRINT_CHANGED":
        return refusal("plan_changed", message);
      case "PLAN_INVALID":
        return refusal("plan_invalid", message, {
          issues: issueLines((error as { issues?: PlanIssue[] }).issues ?? []),
        });
      case "MODEL_FAILED":
        return refusal("model_failed", message);
      case "NO_MODEL":
        return refusal("no_model", message);
      case "REPAIR_IN_PROGRESS":
        return refusal("run_in_progress", message);
      case "RUN_NOT_REPAIRABLE":
      case "NOTHING_ELIGIBLE":
      case "ROUNDS_USED_UP":
      case "REPAIR_PENDING":
      case "ALREADY_REPAIRED":
      case "NO_PENDING_REPAIR":
        return refusal("repair_refused", message, { reason: error.code.toLowerCase() });
    }
  }
  return refusal("failed", message);
}

/** Validation issues as the model reads them: one line each, errors first. */
export function issueLines(issues: readonly PlanIssue[]): string[] {
  const sorted = [...issues].sort((a, b) => rank(a) - rank(b));
  return sorted.map(
    (i) =>
      `${i.severity === "warning" ? "warning " : ""}${i.code}${i.nodeId ? ` [${i.nodeId}]` : ""}: ${i.message}`,
  );
}

function rank(issue: PlanIssue): number {
  return issue.severity === "error" ? 0 : 1;
}

/** A node as a run's answer shows it: its status, and what went wrong when something did. */
export interface NodeLine {
  status: string;
  error?: string;
  items?: { total: number; ok: number; error: number; skipped: number; escalated: number };
}

/**
 * What `plan_execute` answers for a plan written for an objective whose nodes call tools with side effects: the
 * run is recorded, nothing of it runs, and a person approves it (`deputy plan --approve RUN_ID`,
 * `approveAuthoredRun`); the calling model cannot.
 */
export interface PendingApprovalAnswer {
  pending_approval: true;
  run_id: string;
  /** The nodes that wait, with their tools and arguments (previewed when long). */
  calls: unknown;
  message: string;
}

/** What a plan tool answers about a run: where it stands, node by node. */
export interface RunAnswer {
  run_id: string;
  plan: string;
  status: RunStatus;
  /** False while the run goes on (`plan_status` later says how it ended). */
  done: boolean;
  nodes: Record<string, NodeLine>;
  /** The keys of the artifacts stored so far (`plan_artifacts` reads them). */
  artifact_keys: string[];
  /** The artifact the plan `returns`, once stored (cut when large). */
  result?: unknown;
  /** For a run made by applying a repair: the run it repaired. */
  parent_run_id?: string;
  /** The repairs asked for this run: where each stands, and the child run an applied one made. */
  repairs?: { id: string; status: string; child_run_id?: string }[];
  error?: string;
  message: string;
}

/** A finished run's answer, from its manifest. */
export function manifestAnswer(
  manifest: RunManifest,
  returns: string | undefined,
  maxChars: number,
): RunAnswer {
  const nodes: Record<string, NodeLine> = {};
  for (const [id, node] of Object.entries(manifest.nodes)) {
    const first = node.errors[0];
    const escalated = node.escalations[0];
    nodes[id] = {
      status: node.status,
      ...(first ? { error: first.message } : escalated ? { error: escalated.reason } : {}),
      ...(node.items ? { items: counts(node.items) } : {}),
    };
  }
  return answer(
    manifest.runId,
    manifest.plan,
    manifest.status,
    nodes,
    manifest.artifacts,
    returns,
    maxChars,
    manifest.error?.message,
  );
}

/** A run's answer from its stored summary (a run that is still going on, or one read back later). */
export function summaryAnswer(summary: RunSummary, maxChars: number): RunAnswer {
  const nodes: Record<string, NodeLine> = {};
  for (const [id, record] of Object.entries(summary.nodes)) nodes[id] = nodeLine(record);
  const plan = summary.run.plan as { returns?: unknown } | null;
  const { parentRunId, repairs } = summary.run;
  const lineage = {
    ...(parentRunId ? { parent_run_id: parentRunId } : {}),
    ...(repairs?.length
      ? {
          repairs: repairs.map((r) => ({
            id: r.id,
            status: r.status,
            ...(r.childRunId && r.status === "applied" ? { child_run_id: r.childRunId } : {}),
          })),
        }
      : {}),
  };
  return {
    ...answer(
      summary.run.runId,
      summary.run.planName,
      summary.run.status,
      nodes,
      summary.artifacts,
      typeof plan?.returns === "string" ? plan.returns : undefined,
      maxChars,
      summary.run.error?.message,
    ),
    ...lineage,
  };
}

function nodeLine(record: NodeRecord): NodeLine {
  const error = record.error?.message ?? record.escalation?.reason;
  return {
    status: record.status,
    ...(error ? { error } : {}),
    ...(record.items ? { items: counts(record.items) } : {}),
  };
}

function counts(items: NonNullable<NodeRecord["items"]>): NonNullable<NodeLine["items"]> {
  return {
    total: items.total,
    ok: items.ok,
    error: items.error,
    skipped: items.skipped,
    escalated: items.escalated,
  };
}

function answer(
  runId: string,
  plan: string,
  status: RunStatus,
  nodes: Record<string, NodeLine>,
  artifacts: Record<string, unknown>,
  returns: string | undefined,
  maxChars: number,
  error: string | undefined,
): RunAnswer {
  const done = status !== "running";
  const hasResult = returns !== undefined && Object.hasOwn(artifacts, returns);
  return {
    run_id: runId,
    plan,
    status,
    done,
    nodes,
    artifact_keys: Object.keys(artifacts),
    ...(hasResult ? { result: capped(artifacts[returns], maxChars) } : {}),
    ...(error ? { error } : {}),
    message: NEXT_STEP[status],
  };
}

/** What the calling model can do next, by run status. */
const NEXT_STEP: Record<RunStatus, string> = {
  running:
    "The run is still going on in the background. Call plan_status with this run_id later; do not start it again.",
  completed: "The run completed. Read its results with plan_artifacts.",
  partial:
    "The run finished, but some items failed. Read the results with plan_artifacts; plan_repair can replace the failed nodes.",
  failed:
    "The run failed (see the nodes' errors). plan_repair can replace the failed nodes; plan_resume retries them as they are.",
  escalated:
    "The run is paused: a proposal waits for a person's decision. Call plan_status later, then plan_resume once it is decided.",
  cancelled: "The run was cancelled. plan_resume continues it from its last checkpoint.",
  interrupted: "The run was stopped before it finished. plan_resume continues it from its last checkpoint.",
};

/**
 * A value as a tool answer may carry it: as it is when its JSON fits in `maxChars`, else a preview of its JSON
 * (a model's context is not the place for a large artifact).
 */
export function capped(value: unknown, maxChars: number): unknown {
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= maxChars) return value;
  return { truncated: true, chars: text.length, preview: text.slice(0, Math.min(maxChars, 500)) };
}
