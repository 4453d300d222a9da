import type { RunStore, RunSummary } from "../../store/run-store.js";
import type { Escalation } from "../../store/run-state.js";
import { shown } from "./shown.js";
import type { RunToolLoader, ToolView } from "./run-tool-loader.js";

/**
 * One escalated node or item awaiting (or holding) a decision: the stored {@link Escalation} as the inbox shows
 * it, with the run it belongs to, its instruction and facts always present, and its candidate tools as the console
 * lists them. An approval (`kind: "approval"`) shows the exact `call` that waits (a tool node's has no
 * instruction: it is empty), decided by approve or reject.
 */
export type InboxEntry = Pick<
  Escalation,
  | "nodeId"
  | "item"
  | "kind"
  | "call"
  | "verdict"
  | "reason"
  | "proposal"
  | "createdAt"
  | "resolution"
  | "minConfidence"
> &
  Required<Pick<Escalation, "instruction" | "facts" | "allowSideEffects">> & {
    runId: string;
    planName: string;
    runStatus: string;
    /** The candidate tools with their schemas (not redacted: a schema holds names, not values). */
    tools: ToolView[];
    /**
     * False for an escalation stored before escalations kept their input: the instruction and facts are unknown,
     * and the tools are only the one proposed (when the run's module has it).
     */
    recorded: boolean;
  };

/** Options of {@link inbox}. */
export interface InboxOptions {
  /** Only this run. */
  runId?: string;
  /** Runs to look through, newest first. Default 200. */
  runs?: number;
  /** Escalated items per node at most. Default 200. */
  perNode?: number;
}

/** What an escalation stored before escalations kept their input shows in place of the instruction. */
export const UNRECORDED_INSTRUCTION =
  "(not recorded: this escalation was stored before escalations kept the delegate's input)";

/**
 * Every escalation across runs (newest run first), with what the person needs to decide it, read from the
 * escalation records themselves (nothing of the plan is rendered again); redacted.
 */
export async function inbox(
  store: RunStore,
  catalog: RunToolLoader,
  options: InboxOptions = {},
): Promise<InboxEntry[]> {
  const records = options.runId
    ? [(await store.loadSummary(options.runId))?.run].filter((r) => r !== undefined)
    : (await store.list({ limit: options.runs ?? 200 })).filter((r) => r.status === "escalated");
  const entries: InboxEntry[] = [];
  for (const record of records) {
    const summary = await store.loadSummary(record.runId);
    if (!summary) continue;
    for (const [nodeId, node] of Object.entries(summary.nodes)) {
      if (node.escalation && node.status === "escalated")
        entries.push(await entry(summary, nodeId, node.escalation, catalog));
      // A for_each node's record counts its items: only one with escalated items (or still running, its counts
      // not yet written) is paged.
      if (!node.items?.escalated && node.status !== "running") continue;
      const page = await store.listItems(record.runId, nodeId, {
        status: "escalated",
        limit: options.perNode ?? 200,
      });
      for (const { record: item } of page.items)
        if (item.escalation) entries.push(await entry(summary, nodeId, item.escalation, catalog));
    }
  }
  return entries;
}

async function entry(
  summary: RunSummary,
  nodeId: string,
  escalation: Escalation,
  catalog: RunToolLoader,
): Promise<InboxEntry> {
  const approval = escalation.kind === "approval";
  // A tool node's approval has no delegate input to record: nothing is missing.
  const recorded = escalation.instruction !== undefined || (approval && escalation.tools === undefined);
  const proposed = approval
    ? escalation.call?.name
    : (escalation.proposal as { name?: unknown } | undefined)?.name;
  const tools = await candidates(
    summary,
    escalation,
    typeof proposed === "string" ? proposed : undefined,
    catalog,
  );
  const sensitive = tools.find((t) => t.name === proposed)?.sensitive ?? [];
  const body = shown(
    {
      runId: summary.run.runId,
      planName: summary.run.planName,
      runStatus: summary.run.status,
      nodeId,
      ...(escalation.item === undefined ? {} : { item: escalation.item }),
      ...(approval ? { kind: "approval" as const } : {}),
      ...(escalation.call ? { call: escalation.call } : {}),
      verdict: escalation.verdict,
      reason: escalation.reason,
      ...(escalation.proposal === undefined ? {} : { proposal: escalation.proposal }),
      createdAt: escalation.createdAt,
      ...(escalation.resolution ? { resolution: escalation.resolution } : {}),
      instruction: escalation.instruction ?? (recorded ? "" : UNRECORDED_INSTRUCTION),
      facts: escalation.facts ?? {},
      ...(escalation.minConfidence === undefined ? {} : { minConfidence: escalation.minConfidence }),
      allowSideEffects: escalation.allowSideEffects === true,
      recorded,
    },
    sensitive,
  );
  return { ...body, tools };
}

/**
 * The tools the delegate was offered, as recorded. Where the run's tools module (what a corrected call is
 * checked against and resumed with) has a tool of that name, its view is shown instead: its schema is the live
 * one, unredacted, and it knows whether the tool is delegate-safe. An older record names no tools: the proposed
 * one, when the module has it, is all a person can be offered.
 */
async function candidates(
  summary: RunSummary,
  escalation: Escalation,
  proposed: string | undefined,
  catalog: RunToolLoader,
): Promise<ToolView[]> {
  const recorded = escalation.tools;
  if (!recorded) return proposed ? catalog.tools(summary.run, [proposed]) : [];
  const live = await catalog.tools(
    summary.run,
    recorded.map((t) => t.name),
  );
  return recorded.map(
    (t) =>
      live.find((l) => l.name === t.name) ?? {
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        delegateSafe: false,
        sensitive: t.sensitive ?? [],
      },
  );
}
