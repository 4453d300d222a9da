import type { RepairChange, RepairRecord, RunRecord } from "../store/run-state.js";
import type { RunStore } from "../store/run-store.js";

/** A repair as a run's lineage lists it: which round, where it stands, who decided, and the child it made. */
export interface RepairSummary {
  id: string;
  round: number;
  status: RepairRecord["status"];
  createdAt: string;
  childRunId?: string;
  decidedBy?: string;
}

/** What a repair changed: the model that wrote it, the nodes its delta replaced, field by field. */
export interface RepairDelta {
  model?: string;
  nodes: string[];
  diff?: RepairChange[];
}

/** A run's place in its lineage: the run it repairs and the repair that made it, and the repairs asked for it. */
export interface RunLineage {
  parentRunId?: string;
  rootRunId?: string;
  /** For a repair child: the parent's repair that made it, with its delta. */
  madeBy?: RepairSummary & RepairDelta;
  repairs: RepairSummary[];
}

/** What a run was for: the objective and model of a plan `deputy plan` wrote, and its lineage. */
export interface RunOrigin {
  authored?: { objective: string; model: string };
  /** Absent when the run repairs none and has no repairs. */
  lineage?: RunLineage;
}

/**
 * A run's origin, read from the records themselves — the authored plan's options record, the run's own lineage
 * and, for a repair child, the parent's repair record (which keeps the delta and its diff) — for `deputy runs
 * RUN` and the console alike.
 */
export async function runOrigin(store: RunStore, run: RunRecord): Promise<RunOrigin> {
  const authored = run.options.authored;
  // A repair child's delta is kept on its parent's repair record.
  const parent = run.parentRunId ? await store.loadSummary(run.parentRunId) : undefined;
  const made = parent?.run.repairs?.find((r) => r.childRunId === run.runId);
  const lineage =
    run.parentRunId || run.repairs?.length
      ? {
          ...(run.parentRunId
            ? { parentRunId: run.parentRunId, ...(run.rootRunId ? { rootRunId: run.rootRunId } : {}) }
            : {}),
          ...(made ? { madeBy: { ...repairSummary(made), ...repairDelta(made) } } : {}),
          repairs: (run.repairs ?? []).map(repairSummary),
        }
      : undefined;
  return {
    ...(authored ? { authored: { objective: authored.objective, model: authored.model } } : {}),
    ...(lineage ? { lineage } : {}),
  };
}

/** A repair as a lineage lists it. */
export function repairSummary(r: RepairRecord): RepairSummary {
  return {
    id: r.id,
    round: r.round,
    status: r.status,
    createdAt: r.createdAt,
    ...(r.childRunId ? { childRunId: r.childRunId } : {}),
    ...(r.decidedBy ? { decidedBy: r.decidedBy } : {}),
  };
}

/** What a repair changed. */
export function repairDelta(r: RepairRecord): RepairDelta {
  return {
    ...(r.model ? { model: r.model } : {}),
    nodes: [...new Set((r.diff ?? []).map((c) => c.nodeId))],
    ...(r.diff ? { diff: r.diff } : {}),
  };
}
