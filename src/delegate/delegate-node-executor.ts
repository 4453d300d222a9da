import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { compileGuard, type CelGuard } from "../plan/cel-guard.js";
import { dispatchTool } from "../plan/dispatch-tool.js";
import type { NodeExecutor, UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import type { DelegateNode } from "../plan/plan-schema.js";
import type { Resolution } from "../plan/run-state.js";
import { renderString, renderValue } from "../plan/template.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { Tool } from "../tools/define-tool.js";
import { acceptGate, type GateInput, type GateResult, type Verdict } from "./accept-gate.js";
import { ESCALATE_TO_SERVICE, type EscalateToHandler } from "./escalate-to.js";
import { inputChars } from "./prompt.js";
import { proposalChannel, type ProposalEvent } from "./proposal-channel.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { Proposal, ToolCallDelegate, ToolSpec } from "./protocol.js";
import { Redactor } from "./redact.js";
import type { DelegateTrace } from "./trace.js";
import { validateDelegateNode } from "./validate-delegate-node.js";
import { writeTrace } from "./write-trace.js";

/** One proposal hop as the manifest shows it (the full hop goes to the trace sink). */
export interface HopSummary {
  backend: string;
  verdict: Verdict;
  source: "delegate" | "agent" | "person";
  confidence: number | null;
  latencyMs: number;
}

/** Everything one unit's proposals share. */
interface Prepared {
  node: DelegateNode;
  unit: WorkUnit;
  instruction: string;
  facts: Record<string, unknown>;
  specs: ToolSpec[];
  schema: JsonSchema;
  chars: number;
  guard: CelGuard | undefined;
  hops: HopSummary[];
  /** What an `escalate_to` agent spent (the manifest sums `details.spend` per node). */
  spend?: { calls: number; tokens: number; cost: number; duration: number };
}

type Source = HopSummary["source"];
// Escalations are checkpointed and shown in manifests: keep secrets and sensitive arguments out of them.
const argumentRedactor = new Redactor({ secretValues: false });

/**
 * Runs `delegate` nodes: render the instruction and facts, ask the backend chain for one tool call, pass it
 * through the accept gate (every hop traced), dispatch it only when `accepted` (with the node's retry and
 * timeout), and apply `on_reject` otherwise. A unit resumed with a person's resolution uses it instead
 * (`call` still passes the gate's tool, schema and side-effect checks). The outcome's `details` hold the verdict,
 * confidence, backend and hops, so the manifest shows per-item verdicts.
 */
export const delegateNodeExecutor: NodeExecutor<DelegateNode> = {
  validate: validateDelegateNode,
  async execute(node, unit) {
    let p: Prepared;
    try {
      p = prepare(node, unit);
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    if (unit.resolution) return applyResolution(p, unit.resolution);
    const backends = unit.host.delegates.filter((d) => d.maxTools >= p.specs.length);
    if (backends.length === 0) {
      return failure(p, {
        code: "DELEGATE_NOT_CONFIGURED",
        message:
          unit.host.delegates.length === 0
            ? "No delegate backend is configured (pass one with --delegate or the `delegates` option)."
            : `No configured delegate backend accepts ${p.specs.length} tools (maxTools: ${unit.host.delegates.map((d) => `${d.name}=${d.maxTools}`).join(", ")}).`,
      });
    }
    const chain =
      node.on_reject === "retry_backend"
        ? backends.flatMap((b) => Array.from({ length: node.retry.max_attempts }, () => b))
        : [backends[0]!];
    let last: { gate: GateResult; proposal: Proposal | undefined } | undefined;
    for (const backend of chain) {
      if (unit.signal.aborted) return failure(p, { code: "ABORTED", message: "The run was aborted." });
      last = await proposeOnce(p, backend);
      if (last.gate.verdict === "accepted") return dispatch(p, last.gate, last.proposal!, "delegate");
    }
    // A proposal cut short by the run's abort is no verdict on the model: never escalate or fail it as one.
    if (unit.signal.aborted) return failure(p, { code: "ABORTED", message: "The run was aborted." });
    return reject(p, last!.gate, last!.proposal);
  },
};

function prepare(node: DelegateNode, unit: WorkUnit): Prepared {
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
    chars: inputChars(instruction, facts),
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

function gateInput(p: Prepared): Omit<GateInput, "proposal"> {
  const { node, unit } = p;
  return {
    candidates: node.tools,
    findTool: (name) => unit.host.tools.find(name),
    allowSideEffects: { node: node.allow_side_effects, host: unit.host.allowDelegateSideEffects },
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

async function proposeOnce(p: Prepared, backend: ToolCallDelegate) {
  const { unit } = p;
  const started = performance.now();
  let proposal: Proposal | undefined;
  let backendError: unknown;
  if (p.chars <= backend.maxInputChars) {
    try {
      proposal = await backend.propose({
        instruction: p.instruction,
        facts: p.facts,
        tools: p.specs,
        schema: p.schema,
        signal: unit.signal,
        context: {
          runId: unit.runId,
          nodeId: unit.nodeId,
          ...(unit.itemIndex === undefined ? {} : { item: unit.itemIndex }),
        },
      });
    } catch (error) {
      backendError = error;
    }
  }
  const gate = acceptGate({
    ...gateInput(p),
    proposal,
    ...(backendError === undefined ? {} : { backendError }),
    inputChars: p.chars,
    maxInputChars: backend.maxInputChars,
  });
  const latencyMs = proposal?.latencyMs ?? Math.round(performance.now() - started);
  await hop(p, "delegate", backend.name, proposal, gate, latencyMs);
  return { gate, proposal };
}

async function hop(
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
  const { unit } = p;
  if (proposalChannel.hasSubscribers) {
    const event: ProposalEvent = {
      type: "proposal-end",
      runId: unit.runId,
      nodeId: unit.nodeId,
      ...(unit.itemIndex === undefined ? {} : { item: unit.itemIndex }),
      backend,
      source,
      verdict: gate.verdict,
      ...(typeof proposal?.name === "string" ? { tool: proposal.name } : {}),
      confidence: proposal?.confidence ?? null,
      latencyMs,
    };
    proposalChannel.publish(event);
  }
  const trace: DelegateTrace = {
    runId: unit.runId,
    nodeId: unit.nodeId,
    ...(unit.itemIndex === undefined ? {} : { item: unit.itemIndex }),
    instruction: p.instruction,
    facts: p.facts,
    tools: p.specs,
    proposal: proposal ?? null,
    verdict: gate.verdict,
    ...(gate.call ? { finalCall: gate.call } : {}),
    backend,
    latencyMs,
    time: new Date().toISOString(),
    source,
    ...(gate.error ? { error: { code: gate.error.code, message: gate.error.message } } : {}),
  };
  await writeTrace(unit.host.traceSink, trace);
}

function summary(p: Prepared, gate: GateResult, proposal: Proposal | undefined): Record<string, unknown> {
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

async function dispatch(
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

function failure(p: Prepared, error: SerializedError): UnitOutcome {
  return { status: "error", error, details: { hops: p.hops } };
}

async function reject(p: Prepared, gate: GateResult, proposal: Proposal | undefined): Promise<UnitOutcome> {
  if (p.node.on_reject === "escalate") {
    return (await askAgent(p, gate, proposal)) ?? escalated(p, gate, proposal, gate.reason);
  }
  const tries = p.hops.length > 1 ? ` after ${p.hops.length} proposals` : "";
  return {
    status: "error",
    error: {
      code: "DELEGATE_REJECTED",
      message: `The delegate's proposal was rejected${tries} (${gate.verdict}): ${gate.reason}.`,
      details: { verdict: gate.verdict, ...(gate.issues ? { issues: gate.issues } : {}) },
    },
    details: summary(p, gate, proposal),
  };
}

function escalated(
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

/**
 * The `escalate_to` hook: when the node names an agent and the agents part installed a handler, the agent's
 * answer goes through the gate (minus the confidence checks) and runs if accepted; otherwise (no handler, the
 * agent declined, failed or was rejected) the unit pauses for a person.
 */
async function askAgent(
  p: Prepared,
  gate: GateResult,
  proposal: Proposal | undefined,
): Promise<UnitOutcome | undefined> {
  const { node, unit } = p;
  const handler = unit.host.services[ESCALATE_TO_SERVICE] as EscalateToHandler | undefined;
  if (!node.escalate_to || typeof handler !== "function") return undefined;
  const started = performance.now();
  const backend = `agent:${node.escalate_to}`;
  let agentProposal: Proposal | undefined;
  let agentError: unknown;
  try {
    const answer = await handler({
      agent: node.escalate_to,
      node,
      unit,
      instruction: p.instruction,
      facts: p.facts,
      tools: p.specs,
      schema: p.schema,
      verdict: gate.verdict,
      reason: gate.reason,
      proposal,
      signal: unit.signal,
    });
    const latencyMs = Math.round(performance.now() - started);
    if (answer.spend) p.spend = answer.spend;
    agentProposal = {
      name: answer.name,
      arguments: answer.arguments ?? {},
      confidence: null,
      backend: answer.backend ?? backend,
      latencyMs,
    };
  } catch (error) {
    agentError = error;
  }
  const agentGate = acceptGate({
    ...gateInput(p),
    proposal: agentProposal,
    ...(agentError === undefined ? {} : { backendError: agentError }),
    skipConfidence: true,
  });
  await hop(
    p,
    "agent",
    agentProposal?.backend ?? backend,
    agentProposal,
    agentGate,
    Math.round(performance.now() - started),
  );
  if (agentGate.verdict === "accepted") return dispatch(p, agentGate, agentProposal!, "agent");
  const why = `${gate.reason}; escalate_to agent "${node.escalate_to}" did not resolve it (${agentGate.verdict}: ${agentGate.reason})`;
  return escalated(p, gate, proposal, why);
}

/** A person's decision about an earlier escalation. */
async function applyResolution(p: Prepared, resolution: Resolution): Promise<UnitOutcome> {
  switch (resolution.kind) {
    case "value":
      return {
        status: "ok",
        value: resolution.value,
        details: { verdict: "resolved", resolvedBy: "person", resolution: "value" },
      };
    case "skip":
      return {
        status: "skipped",
        details: { verdict: "resolved", resolvedBy: "person", resolution: "skip" },
      };
    case "call": {
      const proposal: Proposal = {
        name: resolution.call.name,
        arguments: resolution.call.arguments ?? {},
        confidence: null,
        backend: "person",
        latencyMs: 0,
      };
      const gate = acceptGate({ ...gateInput(p), proposal, skipConfidence: true, skipGuard: true });
      await hop(p, "person", "person", proposal, gate, 0);
      if (gate.verdict === "accepted") return dispatch(p, gate, proposal, "person");
      // A bad call pauses again rather than failing the run: the person can correct it and resume.
      return escalated(p, gate, proposal, `the resolution's call was rejected: ${gate.reason}`);
    }
  }
}
