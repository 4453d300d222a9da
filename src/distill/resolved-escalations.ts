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
  /**
   * Resolved escalations stored before escalations kept the delegate's input (no instruction recorded): there is
   * nothing to learn the decision from, so they are counted and left out. Absent when there are none.
   */
  unrecorded?: number;
}

/**
 * Reads a run store for the escalations of one delegate node that a person resolved (`deputy resolve`), and
 * turns each into a trace of that node as `examplesFromTraces` reads them: the input as the escalation recorded
 * it (the instruction, facts and candidate tools the delegate was given), and the person's call as the final
 * call (`source: "person"`), or a decline for `--skip`. A `--value` resolution ran no tool, so it is counted, not
 * learned. `toolsFor` may give a run's tool specs (a tools module's): a spec of the same name replaces the
 * recorded one, whose schema the run's redactor may have touched.
 */
export async function resolvedEscalationTraces(
  store: RunStore,
  nodeId: string,
  toolsFor?: (run: RunRecord) => Promise<ToolSpec[] | undefined>,
): Promise<ResolvedEscalations> {
  const out: ResolvedEscalations = { traces: [], runs: 0, unresolved: 0, values: 0 };
  let unrecorded = 0;
  for (const record of await store.list()) {
    const stored = await store.load(record.runId);
    if (!stored) continue;
    const found: Escalation[] = [];
    const node = Object.hasOwn(stored.nodes, nodeId) ? stored.nodes[nodeId] : undefined;
    const items = Object.hasOwn(stored.items, nodeId) ? stored.items[nodeId] : undefined;
    for (const item of Object.values(items ?? {})) if (item.escalation) found.push(item.escalation);
    if (found.length === 0 && node?.escalation) found.push(node.escalation);
    if (!node && !items) continue;
    out.runs++;
    if (found.length === 0) continue;
    const live = (await toolsFor?.(stored.run)) ?? [];
    for (const escalation of found) {
      // An approval is a yes or no to a call the gate already accepted, not a label of the delegate's choice.
      if (escalation.kind === "approval") continue;
      const resolution = escalation.resolution;
      if (!resolution) {
        out.unresolved++;
        continue;
      }
      if (resolution.kind === "value") {
        out.values++;
        continue;
      }
      if (escalation.instruction === undefined) {
        unrecorded++;
        continue;
      }
      const tools = (escalation.tools ?? []).map(
        (t): ToolSpec => live.find((l) => l.name === t.name) ?? toSpec(t),
      );
      out.traces.push({
        runId: stored.run.runId,
        nodeId,
        ...(escalation.item === undefined ? {} : { item: escalation.item }),
        instruction: escalation.instruction,
        facts: escalation.facts ?? {},
        tools,
        proposal: null,
        verdict: resolution.kind === "call" ? "accepted" : "declined",
        ...(resolution.kind === "call" ? { finalCall: resolution.call } : {}),
        backend: "person",
        latencyMs: 0,
        time: escalation.createdAt,
        source: "person",
      });
    }
  }
  if (unrecorded > 0) out.unrecorded = unrecorded;
  // Oldest first, so a later correction of the same input wins in examplesFromTraces.
  out.traces.sort((a, b) => a.time.localeCompare(b.time));
  return out;
}

function toSpec(tool: NonNullable<Escalation["tools"]>[number]): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as ToolSpec["parameters"],
    ...(tool.sensitive ? { sensitive: tool.sensitive } : {}),
  };
}
