import type { SerializedError } from "../../errors/deputy-error.js";
import type { Spend } from "../../plan/run-manifest.js";
import type { ItemPage, RunStore, RunSummary } from "../../store/run-store.js";
import type { NodeRecord, RunRecord, RunStatus } from "../../store/run-state.js";

/**
 * One node of a run as the console draws it: its stored {@link NodeRecord} (less the artifact keys, and with its
 * item counts narrowed to the list's length and counts by status), with what the plan says of it and what the
 * view sums.
 */
export type NodeView = Pick<
  NodeRecord,
  "status" | "attempts" | "startedAt" | "endedAt" | "durationMs" | "error" | "escalation" | "details"
> & {
  id: string;
  /** The node's type (`tool`, `delegate`, `agent`, or one a user registered). */
  type: string;
  dependsOn: string[];
  /** A tool node's tool, as its label. */
  tool?: string;
  description?: string;
  /** for_each progress: the list's length (once the node's record counts it) and the stored items by status. */
  items?: { total?: number; counts: ItemPage["counts"] };
  /** Unresolved escalations: the node's own, or its escalated items. */
  escalated: number;
  spend?: Spend;
};

/** A run as the console shows it (never its items: those are paged). */
export interface RunView {
  runId: string;
  planName: string;
  objective?: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  durationMs: number;
  error?: SerializedError;
  nodes: NodeView[];
  items: { total: number; counts: ItemPage["counts"] };
  escalated: number;
  spend: Spend;
  /** For a child run made by a repair: the run it repairs. */
  parentRunId?: string;
  /** Repairs of this run awaiting a person's decision. */
  pendingRepairs: number;
}

/** The view of a stored run, from its summary and one aggregate query per for_each node. */
export async function viewOf(store: RunStore, summary: RunSummary): Promise<RunView> {
  const { run } = summary;
  const spend: Spend = { calls: 0, tokens: 0, cost: 0, duration: 0 };
  const items = { total: 0, counts: {} as ItemPage["counts"] };
  let escalated = 0;
  const nodes: NodeView[] = [];
  for (const node of planGraph(run.plan)) {
    const record = Object.hasOwn(summary.nodes, node.id) ? summary.nodes[node.id] : undefined;
    const view: NodeView = {
      id: node.id,
      type: node.type,
      dependsOn: node.dependsOn,
      status: record?.status ?? "pending",
      attempts: record?.attempts ?? 0,
      escalated: record?.escalation && !record.escalation.resolution ? 1 : 0,
      ...pick(node, record),
    };
    addSpend(spend, record?.details?.spend);
    if (node.forEach) {
      const page = await store.listItems(run.runId, node.id, { limit: 0 });
      const total = record?.items?.total;
      view.items = { ...(total === undefined ? {} : { total }), counts: page.counts };
      view.escalated = page.counts.escalated ?? 0;
      if (page.spend) {
        view.spend = addSpend(view.spend ?? { calls: 0, tokens: 0, cost: 0, duration: 0 }, page.spend);
        addSpend(spend, page.spend);
      }
      items.total += total ?? 0;
      for (const [status, n] of Object.entries(page.counts) as [keyof ItemPage["counts"], number][])
        items.counts[status] = (items.counts[status] ?? 0) + n;
    }
    escalated += view.escalated;
    nodes.push(view);
  }
  return {
    runId: run.runId,
    planName: run.planName,
    ...objectiveOf(run),
    status: run.status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    durationMs: Date.parse(run.updatedAt) - Date.parse(run.createdAt),
    ...(run.error ? { error: run.error } : {}),
    nodes,
    items,
    escalated,
    spend: round(spend),
    ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    pendingRepairs: (run.repairs ?? []).filter((r) => r.status === "pending").length,
  };
}

/** A node of the plan's graph: what every node type has, under the engine's own field names. */
export interface GraphNode {
  id: string;
  type: string;
  dependsOn: string[];
  forEach: boolean;
  description?: string;
  /** A tool node's tool (its label in the graph). */
  tool?: string;
  /** The node as the plan gave it (raw JSON), shown as text on the node's page. */
  definition: Record<string, unknown>;
}

/**
 * The graph of a run's stored plan (the JSON as given, kept with the run): node ids, types, dependencies and
 * whether a node fans out — the shape every node type shares. Nothing a node type defines for itself (a
 * delegate's instruction, facts or tools) is read or rendered here: what a node was asked and did is in its
 * records (`NodeRecord`, `Escalation`). An entry that is no node object is left out.
 */
export function planGraph(plan: unknown): GraphNode[] {
  const nodes = typeof plan === "object" && plan !== null ? (plan as { nodes?: unknown }).nodes : undefined;
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((raw: unknown): GraphNode[] => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
    const definition = raw as Record<string, unknown>;
    const { id, type, depends_on: dependsOn, for_each: forEach, description, tool } = definition;
    if (typeof id !== "string") return [];
    const nodeType = typeof type === "string" ? type : "tool";
    return [
      {
        id,
        type: nodeType,
        dependsOn: Array.isArray(dependsOn)
          ? dependsOn.filter((d): d is string => typeof d === "string")
          : [],
        forEach: typeof forEach === "object" && forEach !== null,
        ...(typeof description === "string" ? { description } : {}),
        ...(nodeType === "tool" && typeof tool === "string" ? { tool } : {}),
        definition,
      },
    ];
  });
}

function pick(node: GraphNode, record: RunSummary["nodes"][string] | undefined) {
  const spend = record?.details?.spend as Spend | undefined;
  return {
    ...(node.tool ? { tool: node.tool } : {}),
    ...(node.description ? { description: node.description } : {}),
    ...(record?.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record?.endedAt ? { endedAt: record.endedAt } : {}),
    ...(record?.durationMs !== undefined ? { durationMs: record.durationMs } : {}),
    ...(record?.error ? { error: record.error } : {}),
    ...(record?.escalation ? { escalation: record.escalation } : {}),
    ...(record?.details ? { details: record.details } : {}),
    ...(spend && typeof spend === "object" ? { spend: addSpend(undefined, spend) } : {}),
  };
}

function objectiveOf(run: RunRecord): { objective?: string } {
  const objective = (run.plan as { objective?: unknown } | null)?.objective;
  return typeof objective === "string" ? { objective } : {};
}

function addSpend(total: Spend | undefined, add: unknown): Spend {
  const t = total ?? { calls: 0, tokens: 0, cost: 0, duration: 0 };
  if (!add || typeof add !== "object") return t;
  const s = add as Partial<Spend>;
  t.calls += Number(s.calls ?? 0);
  t.tokens += Number(s.tokens ?? 0);
  t.cost += Number(s.cost ?? 0);
  t.duration += Number(s.duration ?? 0);
  return t;
}

function round(s: Spend): Spend {
  return { ...s, cost: Math.round(s.cost * 1e9) / 1e9, duration: Math.round(s.duration * 1000) / 1000 };
}
