import { delegateHost } from "./host-capabilities.js";
import type { SerializedError } from "../errors/deputy-error.js";
import { compileGuard, type CelGuard } from "../runtime/cel-guard.js";
import { dispatchTool } from "../runtime/dispatch-tool.js";
import type { UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import { renderString, renderValue } from "../runtime/template.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import type { GateInput, GateResult, Verdict } from "./accept-gate.js";
import type { DelegateNode } from "./delegate-node.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { Proposal, ToolSpec } from "./protocol.js";
import { judgeProposal } from "./propose-and-judge.js";
import type { ProposalSource } from "./record-proposal.js";
import { Redactor } from "../traces/redact.js";

// The pieces every path of a delegate unit shares (a backend's proposal, an escalate_to agent's answer, a
// person's resolution): the prepared input, the traced hop, the dispatch and the outcomes.

/** One proposal hop as the manifest shows it (the full hop goes to the trace sink). */
export interface HopSummary {
  backend: string;
  verdict: Verdict;
  source: ProposalSource;
  confidence: number | null;
  latencyMs: number;
}

/** Everything one unit's proposals share (not exported from the package's entries). */
export interface Prepared {
  node: DelegateNode;
  unit: WorkUnit;
  instruction: string;
  facts: Record<string, unknown>;
  specs: ToolSpec[];
  schema: JsonSchema;
  guard: CelGuard | undefined;
  hops: HopSummary[];
  /** What an `escalate_to` agent spent (the manifest sums `details.spend` per node). */
  spend?: { calls: number; tokens: number; cost: number; duration: number };
}

export type Source = HopSummary["source"];
// Escalations are checkpointed and shown in manifests: keep secrets and sensitive arguments out of them.
export const argumentRedactor = new Redactor({ secretValues: false });

/** Renders the instruction and facts with the unit's scope and builds the tool specs, proposal schema and guard. */
export function prepare(node: DelegateNode, unit: WorkUnit): Prepared {
  const rendered = renderString(node.instruction, unit.scope);
  const instruction = typeof rendered === "string" ? rendered : JSON.stringify(rendered);
  const facts = renderValue(node.facts, unit.scope) as Record<string, unknown>;
  const tools = node.tools
    .map((name) => unit.host.tools.find(name))
    .filter((t): t is Tool => t !== undefined);
  const specs = tools.map(toolSpec);
  return {
    node,
    unit,
    instruction,
    facts,
    specs,
    schema: buildProposalSchema(specs),
    guard: node.accept_when ? compileGuard(node.accept_when) : undefined,
    hops: [],
  };
}

/** A registered tool as a delegate sees it (its `delegateDescription` when it has one). */
export function toolSpec(tool: Tool): ToolSpec {
  return {
    name: tool.name,
    description: tool.delegateDescription ?? tool.description,
    parameters: tool.parameters,
    ...(tool.sensitive.length > 0 ? { sensitive: tool.sensitive } : {}),
  };
}

/** The gate's input for this unit, less the proposal. */
export function gateInput(p: Prepared): Omit<GateInput, "proposal"> {
  const { node, unit } = p;
  return {
    candidates: node.tools,
    findTool: (name) => unit.host.tools.find(name),
    allowSideEffects: {
      node: node.allow_side_effects,
      host: delegateHost(unit.host).allowDelegateSideEffects,
    },
    ...(node.min_confidence === undefined ? {} : { minConfidence: node.min_confidence }),
    ...(p.guard ? { guard: p.guard } : {}),
    guardContext: {
      facts: p.facts,
      artifacts: unit.scope.artifacts,
      status: unit.statuses,
      errors: unit.errors,
    },
  };
}

/**
 * Judges a proposal that did not come from a backend (an `escalate_to` agent's answer, a person's resolution)
 * with `judgeProposal` — the gate, the `deputy:proposal` event and the trace — and adds the hop to the unit's
 * summary. `extra` adds to the unit's gate input (`skipConfidence`, `skipGuard`, `unparsedArguments`).
 */
export async function judgeHop(
  p: Prepared,
  source: Source,
  backend: string,
  proposal: Proposal | undefined,
  extra: Partial<GateInput> & { backendError?: unknown },
  latencyMs: number,
): Promise<GateResult> {
  const { backendError, ...gate } = extra;
  const result = await judgeProposal({
    proposal,
    ...(backendError === undefined ? {} : { backendError }),
    gate: { ...gateInput(p), ...gate },
    request: { instruction: p.instruction, facts: p.facts, tools: p.specs, context: unitContext(p.unit) },
    backend,
    source,
    latencyMs,
    traceSink: delegateHost(p.unit.host).traceSink,
  });
  summarizeHop(p, source, backend, proposal, result, latencyMs);
  return result;
}

/** Adds a hop to the unit's summary (the manifest's `hops`). */
export function summarizeHop(
  p: Prepared,
  source: Source,
  backend: string,
  proposal: Proposal | undefined,
  gate: GateResult,
  latencyMs: number,
) {
  p.hops.push({
    backend,
    verdict: gate.verdict,
    source,
    confidence: proposal?.confidence ?? null,
    latencyMs,
  });
}

/** The unit a proposal is for, as a backend's `context` and a trace name it. */
export function unitContext(unit: WorkUnit): { runId: string; nodeId: string; item?: number } {
  return {
    runId: unit.runId,
    nodeId: unit.nodeId,
    ...(unit.itemIndex === undefined ? {} : { item: unit.itemIndex }),
  };
}

/** What the manifest shows of the unit (its `details`). */
export function summary(
  p: Prepared,
  gate: GateResult,
  proposal: Proposal | undefined,
): Record<string, unknown> {
  return {
    verdict: gate.verdict,
    ...(gate.verdict === "accepted" ? {} : { reason: gate.reason }),
    ...(proposal?.name ? { tool: proposal.name } : {}),
    confidence: proposal?.confidence ?? null,
    backend: proposal?.backend ?? p.hops.at(-1)?.backend ?? null,
    hops: p.hops,
    ...(p.spend ? { spend: p.spend } : {}),
  };
}

/** Runs an accepted call with the node's retry and timeout. */
export async function dispatch(
  p: Prepared,
  gate: GateResult,
  proposal: Proposal,
  source: Source,
): Promise<UnitOutcome> {
  const result = await dispatchTool(gate.tool!, gate.call!.arguments, p.unit, p.node.retry, p.node.timeout);
  const details = {
    ...summary(p, gate, proposal),
    ...(source === "delegate" ? {} : { resolvedBy: source }),
    attempts: result.attempts,
  };
  return result.ok
    ? { status: "ok", value: result.value, details }
    : { status: "error", error: result.error, details };
}

/** An error outcome that still carries the hops so far. */
export function failure(p: Prepared, error: SerializedError): UnitOutcome {
  return { status: "error", error, details: { hops: p.hops } };
}

/** An escalated outcome: the verdict, the reason and the proposal (secrets and sensitive arguments redacted). */
export function escalated(
  p: Prepared,
  gate: GateResult,
  proposal: Proposal | undefined,
  reason: string,
): UnitOutcome {
  const sensitive = p.specs.find((s) => s.name === proposal?.name)?.sensitive ?? [];
  return {
    status: "escalated",
    escalation: {
      verdict: gate.verdict,
      reason,
      // What the person deciding and the learner need, as this unit rendered it: the record describes itself.
      instruction: p.instruction,
      facts: p.facts,
      tools: p.specs.map(({ name, description, parameters, sensitive }) => ({
        name,
        description,
        parameters,
        ...(sensitive ? { sensitive } : {}),
      })),
      ...(p.node.min_confidence === undefined ? {} : { minConfidence: p.node.min_confidence }),
      allowSideEffects: p.node.allow_side_effects,
      ...(proposal
        ? {
            proposal: {
              name: proposal.name,
              arguments: argumentRedactor.redactValue(proposal.arguments ?? {}, sensitive),
              confidence: proposal.confidence,
              backend: proposal.backend,
            },
          }
        : {}),
    },
    details: summary(p, gate, proposal),
  };
}
