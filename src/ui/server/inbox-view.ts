import type { RunStore, RunSummary } from "../../store/run-store.js";
import type { Escalation } from "../../store/run-state.js";
import { forEachList, planNodes, renderedInput, type RawPlanNode } from "./plan-nodes.js";
import { shown } from "./shown.js";
import type { ToolCatalog, ToolView } from "./tool-catalog.js";

/** One escalated node or item awaiting (or holding) a decision. */
export interface InboxEntry {
  runId: string;
  planName: string;
  runStatus: string;
  nodeId: string;
  item?: number;
  verdict: string;
  reason: string;
  proposal?: unknown;
  createdAt: string;
  resolution?: Escalation["resolution"];
  instruction: string;
  facts: Record<string, unknown>;
  minConfidence?: number;
  allowSideEffects: boolean;
  /** The candidate tools with their schemas (not redacted: a schema holds names, not values). */
  tools: ToolView[];
}

/** Options of {@link inbox}. */
export interface InboxOptions {
  /** Only this run. */
  runId?: string;
  /** Runs to look through, newest first. Default 200. */
  runs?: number;
  /** Escalated items per node at most. Default 200. */
  perNode?: number;
}

/** Every escalation across runs (newest run first), with what the person needs to decide it; redacted. */
export async function inbox(
  store: RunStore,
  catalog: ToolCatalog,
  options: InboxOptions = {},
): Promise<InboxEntry[]> {
  const records = options.runId
    ? [(await store.loadSummary(options.runId))?.run].filter((r) => r !== undefined)
    : (await store.list({ limit: options.runs ?? 200 })).filter((r) => r.status === "escalated");
  const entries: InboxEntry[] = [];
  for (const record of records) {
    const summary = await store.loadSummary(record.runId);
    if (!summary) continue;
    for (const node of planNodes(summary.run.plan)) {
      const own = summary.nodes[node.id]?.escalation;
      if (own && summary.nodes[node.id]?.status === "escalated")
        entries.push(await entry(summary, node, own, catalog));
      if (!node.for_each) continue;
      const page = await store.listItems(record.runId, node.id, {
        status: "escalated",
        limit: options.perNode ?? 200,
      });
      // The for_each list is rebuilt once per node, not once per item.
      const list = forEachList(node, summary.artifacts);
      for (const { record: item } of page.items)
        if (item.escalation) entries.push(await entry(summary, node, item.escalation, catalog, list));
    }
  }
  return entries;
}

async function entry(
  summary: RunSummary,
  node: RawPlanNode,
  escalation: Escalation,
  catalog: ToolCatalog,
  list?: unknown[],
): Promise<InboxEntry> {
  const tools = await catalog.tools(summary.run, node.tools ?? []);
  const proposed = (escalation.proposal as { name?: unknown } | undefined)?.name;
  const sensitive = tools.find((t) => t.name === proposed)?.sensitive ?? [];
  const input = renderedInput(node, summary.artifacts, escalation.item, list);
  const body = shown(
    {
      runId: summary.run.runId,
      planName: summary.run.planName,
      runStatus: summary.run.status,
      nodeId: node.id,
      ...(escalation.item === undefined ? {} : { item: escalation.item }),
      verdict: escalation.verdict,
      reason: escalation.reason,
      ...(escalation.proposal === undefined ? {} : { proposal: escalation.proposal }),
      createdAt: escalation.createdAt,
      ...(escalation.resolution ? { resolution: escalation.resolution } : {}),
      instruction: input.instruction,
      facts: input.facts,
      ...(node.min_confidence === undefined ? {} : { minConfidence: node.min_confidence }),
      allowSideEffects: node.allow_side_effects === true,
    },
    sensitive,
  );
  return { ...body, tools };
}
