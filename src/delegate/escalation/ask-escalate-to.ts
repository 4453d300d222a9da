import { delegateHost } from "../host-capabilities.js";
import type { UnitOutcome } from "../../plan/node-executor.js";
import type { GateResult } from "../accept-gate.js";
import type { DelegateUnit } from "../delegate-unit.js";
import type { Proposal } from "../protocol.js";
import type { Spend } from "../../records/spend.js";

/**
 * The `escalate_to` hook: when the node names an agent and the host has an escalation handler, the agent's
 * answer is judged by the unit (the agent's `CHECKS`: no confidence checks) and runs if accepted; otherwise (no
 * handler, the agent declined, failed or was rejected) the unit pauses for a person.
 */
export async function askAgent(
  p: DelegateUnit,
  gate: GateResult,
  proposal: Proposal | undefined,
): Promise<UnitOutcome | undefined> {
  const { node, unit } = p;
  const handler = delegateHost(unit.host).escalation;
  if (!node.escalate_to || !handler) return undefined;
  const started = performance.now();
  const backend = `agent:${node.escalate_to}`;
  let agentProposal: Proposal | undefined;
  let unparsedArguments: string | undefined;
  let agentError: unknown;
  let spend: Spend | undefined;
  try {
    const answer = await handler({
      agent: node.escalate_to,
      node,
      unit,
      ...p.task,
      schema: p.schema,
      verdict: gate.verdict,
      reason: gate.reason,
      proposal,
      signal: unit.signal,
    });
    const latencyMs = Math.round(performance.now() - started);
    spend = answer.spend;
    unparsedArguments = answer.unparsedArguments;
    agentProposal = {
      name: answer.name,
      arguments: answer.arguments ?? {},
      confidence: null,
      backend: answer.backend ?? backend,
      latencyMs,
      ...(unparsedArguments !== undefined ? { raw: unparsedArguments } : {}),
    };
  } catch (error) {
    agentError = error;
  }
  const agentGate = await p.judge(
    "agent",
    agentProposal?.backend ?? backend,
    agentProposal,
    Math.round(performance.now() - started),
    {
      ...(agentError === undefined ? {} : { backendError: agentError }),
      ...(unparsedArguments === undefined ? {} : { unparsedArguments }),
      ...(spend === undefined ? {} : { spend }),
    },
  );
  if (agentGate.verdict === "accepted") return p.dispatch(agentGate, agentProposal!, "agent");
  const why = `${gate.reason}; escalate_to agent "${node.escalate_to}" did not resolve it (${agentGate.verdict}: ${agentGate.reason})`;
  return p.escalated(gate, proposal, why);
}
