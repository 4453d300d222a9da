import type { SerializedError } from "../../errors/deputy-error.js";
import type { Spend } from "../../plan/run-manifest.js";
import type { ItemPage, RunStore, RunSummary } from "../../store/run-store.js";
import type { Escalation, NodeStatus, RunRecord, RunStatus } from "../../store/run-state.js";
import { forEachList, planNodes } from "./plan-nodes.js";

/** One node of a run as the console draws it. */
export interface NodeView {
  id: string;
  type: "tool" | "delegate" | "agent";
  dependsOn: string[];
  status: NodeStatus;
  tool?: string;
  tools?: string[];
  description?: string;
  minConfidence?: number;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  error?: SerializedError;
  escalation?: Escalation;
  /** for_each progress: the list's length (when known) and the stored items by status. */
  items?: { total?: number; counts: ItemPage["counts"] };
  /** Unresolved escalations: the node's own, or its escalated items. */
  escalated: number;
  spend?: Spend;
  details?: Record<string, unknown>;
}

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
}

/** The view of a stored run, from its summary and one aggregate query per for_each node. */
export async function viewOf(store: RunStore, summary: RunSummary): Promise<RunView> {
  const { run } = summary;
  const spend: Spend = { calls: 0, tokens: 0, cost: 0, duration: 0 };
  const items = { total: 0, counts: {} as ItemPage["counts"] };
  let escalated = 0;
  const nodes: NodeView[] = [];
  for (const node of planNodes(run.plan)) {
    const record = summary.nodes[node.id];
    const view: NodeView = {
      id: node.id,
      type: node.type ?? "tool",
      dependsOn: node.depends_on ?? [],
      status: record?.status ?? "pending",
      attempts: record?.attempts ?? 0,
      escalated: record?.escalation && !record.escalation.resolution ? 1 : 0,
      ...pick(node, record),
    };
    addSpend(spend, record?.details?.spend);
    if (node.for_each) {
      const page = await store.listItems(run.runId, node.id, { limit: 0 });
      const total = record?.items?.total ?? forEachList(node, summary.artifacts)?.length;
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
  };
}

function pick(node: ReturnType<typeof planNodes>[number], record: RunSummary["nodes"][string] | undefined) {
  const spend = record?.details?.spend as Spend | undefined;
  return {
    ...(node.tool ? { tool: node.tool } : {}),
    ...(node.tools ? { tools: node.tools } : {}),
    ...(node.description ? { description: node.description } : {}),
    ...(node.min_confidence !== undefined ? { minConfidence: node.min_confidence } : {}),
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
