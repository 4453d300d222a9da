import { renderString, renderValue, type TemplateScope } from "../runtime/template.js";
import { applySelectPath, parseSelectPath } from "../runtime/select-path.js";
import type { Escalation, RunRecord } from "../store/run-state.js";
import type { RunStore } from "../store/run-store.js";
import type { ToolSpec } from "../delegate/protocol.js";
import type { DelegateTrace } from "../traces/trace.js";

/** What {@link resolvedEscalationTraces} found besides the labels. */
export interface ResolvedEscalations {
  /** One trace per resolved escalation of the node: a person's call, or a decline for a skip. */
  traces: DelegateTrace[];
  runs: number;
  /** Escalations of the node nobody has resolved yet. */
  unresolved: number;
  /** Resolutions that are no label: a stored value (the person ran nothing and gave the result instead). */
  values: number;
}

interface RawNode {
  id?: unknown;
  type?: unknown;
  instruction?: unknown;
  facts?: unknown;
  tools?: unknown;
  for_each?: { source?: unknown; select?: unknown; as?: unknown };
}

/**
 * Reads a run store for the escalations of one delegate node that a person resolved (`deputy resolve`), and
 * turns each into a trace of that node as `examplesFromTraces` reads them: the input re-rendered from the stored
 * plan and artifacts exactly as the node rendered it, and the person's call as the final call (`source:
 * "person"`), or a decline for `--skip`. A `--value` resolution ran no tool, so it is counted, not learned.
 * `toolsFor` gives a run's tool specs (from its tools module); without them the traces carry none.
 */
export async function resolvedEscalationTraces(
  store: RunStore,
  nodeId: string,
  toolsFor?: (run: RunRecord) => Promise<ToolSpec[] | undefined>,
): Promise<ResolvedEscalations> {
  const out: ResolvedEscalations = { traces: [], runs: 0, unresolved: 0, values: 0 };
  for (const record of await store.list()) {
    const stored = await store.load(record.runId);
    const plan = stored?.run.plan as { nodes?: RawNode[] } | undefined;
    const node = plan?.nodes?.find((n) => n.id === nodeId);
    if (!stored || !node || node.type !== "delegate" || typeof node.instruction !== "string") continue;
    out.runs++;
    const found: { escalation: Escalation; scope: TemplateScope; item?: number }[] = [];
    const base: TemplateScope = { artifacts: stored.artifacts };
    const inputs = stored.run.options.inputs;
    if (inputs) base.inputs = inputs;
    const nodeEscalation = stored.nodes[nodeId]?.escalation;
    if (node.for_each && typeof node.for_each.source === "string") {
      const list = forEachList(node.for_each, base);
      for (const item of Object.values(stored.items[nodeId] ?? {})) {
        if (!item.escalation || !list || item.index >= list.length) continue;
        const alias = typeof node.for_each.as === "string" ? node.for_each.as : "item";
        found.push({
          escalation: item.escalation,
          item: item.index,
          scope: { ...base, alias, item: list[item.index], index: item.index },
        });
      }
    } else if (nodeEscalation) {
      found.push({ escalation: nodeEscalation, scope: base });
    }
    if (found.length === 0) continue;
    const tools = (await toolsFor?.(stored.run)) ?? [];
    const offered = new Set(Array.isArray(node.tools) ? node.tools : []);
    for (const { escalation, scope, item } of found) {
      const resolution = escalation.resolution;
      if (!resolution) {
        out.unresolved++;
        continue;
      }
      if (resolution.kind === "value") {
        out.values++;
        continue;
      }
      const rendered = renderString(node.instruction, scope);
      const trace: DelegateTrace = {
        runId: stored.run.runId,
        nodeId,
        ...(item === undefined ? {} : { item }),
        instruction: typeof rendered === "string" ? rendered : JSON.stringify(rendered),
        facts: (renderValue(node.facts ?? {}, scope) as Record<string, unknown>) ?? {},
        tools: tools.filter((t) => offered.has(t.name)),
        proposal: null,
        verdict: resolution.kind === "call" ? "accepted" : "declined",
        ...(resolution.kind === "call" ? { finalCall: resolution.call } : {}),
        backend: "person",
        latencyMs: 0,
        time: escalation.createdAt,
        source: "person",
      };
      out.traces.push(trace);
    }
  }
  // Oldest first, so a later correction of the same input wins in examplesFromTraces.
  out.traces.sort((a, b) => a.time.localeCompare(b.time));
  return out;
}

function forEachList(fe: NonNullable<RawNode["for_each"]>, scope: TemplateScope): unknown[] | undefined {
  try {
    const source = renderString(fe.source as string, scope);
    const list =
      typeof fe.select === "string"
        ? applySelectPath(source, parseSelectPath(fe.select), (fe.source as string).slice(1, -1))
        : source;
    return Array.isArray(list) ? list : undefined;
  } catch {
    return undefined; // the artifacts it read are gone: nothing to re-render
  }
}
