import type { SerializedError } from "../errors/deputy-error.js";
import type { Escalation, ItemCounts, NodeStatus, RunStatus, Spend, StoredRun } from "../store/run-state.js";
import type { NodeType } from "./node-type.js";
import type { NodeTypeTable } from "./node-type-table.js";

export type { Spend } from "../store/run-state.js";

/** One node in a manifest. */
export interface NodeManifest {
  /** The node's type (a registered `NodeType`'s name). */
  type: string;
  status: NodeStatus;
  storedKeys: string[];
  items?: ItemCounts;
  /** The node's error, and each failed item's. */
  errors: (SerializedError & { item?: number })[];
  escalations: Escalation[];
  /** Per-item details (verdicts, ledgers) for items that have any. */
  itemDetails?: Record<number, Record<string, unknown>>;
  details?: Record<string, unknown>;
  /** What the node spent (as its node type reads it from the details: `NodeType.spend`), summed over its items. */
  spend?: Spend;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
}

/** Without a node type table (a reader of stored runs): the details' `spend`, as the built-in types store it. */
const storedSpend: Pick<NodeType, "spend"> = {
  spend: (details) => details.spend as Partial<Spend> | undefined,
};

/** `total` plus what `details` report spent, as node type `type` reads it (`undefined`: nothing spent yet). */
export function addSpend(
  total: Spend | undefined,
  details: Record<string, unknown> | undefined,
  type: Pick<NodeType, "spend"> | undefined,
): Spend | undefined {
  const s = details && type?.spend ? type.spend(details) : undefined;
  if (!s || typeof s !== "object") return total;
  const t = total ?? { calls: 0, tokens: 0, cost: 0, duration: 0 };
  return {
    calls: t.calls + (s.calls ?? 0),
    tokens: t.tokens + (s.tokens ?? 0),
    cost: Math.round((t.cost + (s.cost ?? 0)) * 1e9) / 1e9,
    duration: Math.round((t.duration + (s.duration ?? 0)) * 1000) / 1000,
  };
}

/** What a run did: statuses, stored keys, counts, errors, escalations, timings and the artifacts. */
export interface RunManifest {
  runId: string;
  plan: string;
  status: RunStatus;
  fingerprint: string;
  createdAt: string;
  updatedAt: string;
  counts: Record<NodeStatus, number>;
  nodes: Record<string, NodeManifest>;
  artifacts: Record<string, unknown>;
  /** The artifact key the plan `returns` (what a call of the plan answers with), when it declares one. */
  returns?: string;
  error?: SerializedError;
}

/**
 * Builds the manifest of a stored run; `nodes` gives the plan's node ids and types, in plan order. `nodeTypes`
 * (the run's) say what each node spent and which type a node without `type` has; without them a node's spend is
 * its details' `spend` and the implicit type is `tool`.
 */
export function buildManifest(
  stored: StoredRun,
  nodes: readonly { id: string; type?: string }[],
  nodeTypes?: NodeTypeTable,
): RunManifest {
  const counts: Record<NodeStatus, number> = {
    pending: 0,
    running: 0,
    ok: 0,
    partial: 0,
    skipped: 0,
    error: 0,
    blocked: 0,
    escalated: 0,
  };
  const out: Record<string, NodeManifest> = {};
  for (const node of nodes) {
    const record = stored.nodes[node.id];
    const status = record?.status ?? "pending";
    counts[status]++;
    const errors: NodeManifest["errors"] = [];
    if (record?.error) errors.push(record.error);
    const escalations: Escalation[] = [];
    if (record?.escalation) escalations.push(record.escalation);
    let itemDetails: Record<number, Record<string, unknown>> | undefined;
    const type = node.type ?? nodeTypes?.implicit ?? "tool";
    const spender = nodeTypes ? nodeTypes.get(type) : storedSpend;
    let spend = addSpend(undefined, record?.details, spender);
    // One pass over the items (a for_each node may have many): item errors, open escalations, details, spend.
    const items = stored.items[node.id];
    if (items)
      for (const item of Object.values(items)) {
        if (item.error) errors.push({ ...item.error, item: item.index });
        if (item.escalation && item.status === "escalated") escalations.push(item.escalation);
        if (item.details) {
          (itemDetails ??= {})[item.index] = item.details;
          spend = addSpend(spend, item.details, spender);
        }
      }
    out[node.id] = {
      type,
      status,
      storedKeys: record?.storedKeys ?? [],
      ...(record?.items ? { items: record.items } : {}),
      errors,
      escalations,
      ...(itemDetails ? { itemDetails } : {}),
      ...(record?.details ? { details: record.details } : {}),
      ...(spend ? { spend } : {}),
      attempts: record?.attempts ?? 0,
      ...(record?.startedAt ? { startedAt: record.startedAt } : {}),
      ...(record?.endedAt ? { endedAt: record.endedAt } : {}),
      ...(record?.durationMs !== undefined ? { durationMs: record.durationMs } : {}),
    };
  }
  const plan = stored.run.plan as { returns?: unknown } | null;
  const returns = typeof plan === "object" && plan !== null ? plan.returns : undefined;
  return {
    runId: stored.run.runId,
    plan: stored.run.planName,
    status: stored.run.status,
    fingerprint: stored.run.fingerprint,
    createdAt: stored.run.createdAt,
    updatedAt: stored.run.updatedAt,
    counts,
    nodes: out,
    artifacts: stored.artifacts,
    ...(typeof returns === "string" ? { returns } : {}),
    ...(stored.run.error ? { error: stored.run.error } : {}),
  };
}
