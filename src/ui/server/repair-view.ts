import { pendingRepairs } from "../../authoring/repair-decisions.js";
import { renderRepairDiff } from "../../authoring/repair-diff.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { RepairChange, RepairRecord, RunRecord } from "../../store/run-state.js";
import type { RunStore } from "../../store/run-store.js";
import { shown } from "./shown.js";

/** A pending repair as the inbox shows it: the run, why its nodes failed, and the model's change as a diff. */
export interface RepairEntry {
  runId: string;
  planName: string;
  runStatus: string;
  repairId: string;
  round: number;
  createdAt: string;
  /** The model that wrote the delta (a spec without credentials). */
  model?: string;
  /** The nodes the model could replace, with the error each ended with. */
  failed: { nodeId: string; status: string; error?: string }[];
  /** The changes, field by field (values are the model's: shown as text, never markup). */
  diff: RepairChange[];
  /** The same changes as `deputy repair` prints them, control and bidirectional characters escaped. */
  diffText: string;
  usage?: RepairRecord["usage"];
}

/** A run's lineage as its page shows it: the run it repairs, and each repair asked for it. */
export interface RunLineage {
  parentRunId?: string;
  rootRunId?: string;
  repairs: { id: string; status: string; createdAt: string; childRunId?: string; decidedBy?: string }[];
}

/**
 * The repairs awaiting a decision (of one run, or of the newest runs), read from the repair records themselves
 * (each keeps its diff; nothing is asked of the model or re-derived from plans again); redacted.
 */
export async function repairInbox(
  store: RunStore,
  options: { runId?: string; runs?: number } = {},
): Promise<RepairEntry[]> {
  const pending = options.runId
    ? ((await store.loadSummary(options.runId))?.run.repairs ?? [])
        .filter((r) => r.status === "pending")
        .map((repair) => ({ runId: options.runId!, repair }))
    : await pendingRepairs(store, { limit: options.runs ?? 200 });
  const entries: RepairEntry[] = [];
  for (const { runId, repair } of pending) {
    const summary = await store.loadSummary(runId);
    if (!summary) continue;
    const failed = repair.eligible.map((nodeId) => {
      const record = Object.hasOwn(summary.nodes, nodeId) ? summary.nodes[nodeId] : undefined;
      return {
        nodeId,
        status: record?.status ?? "pending",
        ...(record?.error ? { error: record.error.message } : {}),
      };
    });
    const diff = repair.diff ?? [];
    entries.push(
      shown({
        runId,
        planName: summary.run.planName,
        runStatus: summary.run.status,
        repairId: repair.id,
        round: repair.round,
        createdAt: repair.createdAt,
        ...(repair.model ? { model: repair.model } : {}),
        failed,
        diff,
        diffText: renderRepairDiff(diff),
        ...(repair.usage ? { usage: repair.usage } : {}),
      }),
    );
  }
  return entries;
}

/** The lineage of a run, from its own record (a child names its parent; a parent's repairs name their child). */
export function lineageOf(run: RunRecord): RunLineage {
  return {
    ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    ...(run.rootRunId ? { rootRunId: run.rootRunId } : {}),
    repairs: (run.repairs ?? []).map((r) => ({
      id: r.id,
      status: r.status,
      createdAt: r.createdAt,
      ...(r.childRunId && (r.status === "applied" || r.status === "approved")
        ? { childRunId: r.childRunId }
        : {}),
      ...(r.decidedBy ? { decidedBy: r.decidedBy } : {}),
    })),
  };
}

const MAX_NAME = 200;
const MAX_REASON = 2_000;

/**
 * The body of an approve or reject request: `{ by?, reason? }` (a reason only for a rejection). Anything else —
 * another key, a value of the wrong type, a name or reason too long — is refused, so a request means exactly
 * one thing.
 */
export function parseRepairDecision(
  body: unknown,
  kind: "approve" | "reject",
): { by?: string; reason?: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new InvalidOptionError("body", "a JSON object", body);
  const allowed = kind === "reject" ? ["by", "reason"] : ["by"];
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length) throw new InvalidOptionError("body", `only ${allowed.join(" and ")}`, extra.join(", "));
  const { by, reason } = body as { by?: unknown; reason?: unknown };
  if (by !== undefined && (typeof by !== "string" || by.length > MAX_NAME))
    throw new InvalidOptionError("by", `a name of at most ${MAX_NAME} characters`, by);
  if (reason !== undefined && (typeof reason !== "string" || reason.length > MAX_REASON))
    throw new InvalidOptionError("reason", `text of at most ${MAX_REASON} characters`, reason);
  return {
    ...(typeof by === "string" && by.trim() ? { by: by.trim() } : {}),
    ...(typeof reason === "string" && reason.trim() ? { reason: reason.trim() } : {}),
  };
}
