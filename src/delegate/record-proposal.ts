import type { GateResult } from "./accept-gate.js";
import { proposalChannel, type ProposalEvent } from "./proposal-channel.js";
import type { Proposal, ToolSpec } from "./protocol.js";
import { redactText } from "../traces/redact.js";
import type { DelegateTrace, TraceSink } from "../traces/trace.js";
import { writeTrace } from "../traces/write-trace.js";

/** Who made a proposal: a delegate backend, an `escalate_to` agent, or a person's resolution. */
export type ProposalSource = "delegate" | "agent" | "person";

/** One judged proposal hop, as {@link recordProposal} records it. */
export interface ProposalHop {
  runId: string;
  nodeId: string;
  item?: number;
  instruction: string;
  facts: Record<string, unknown>;
  tools: ToolSpec[];
  proposal: Proposal | undefined;
  gate: GateResult;
  backend: string;
  source: ProposalSource;
  latencyMs: number;
}

/**
 * Records one judged proposal: publishes it on `deputy:proposal` (small, no instruction, facts or arguments) and
 * writes its trace to the sink (redacted by the sink; never throws).
 */
export async function recordProposal(sink: TraceSink | undefined, hop: ProposalHop): Promise<void> {
  const { proposal, gate } = hop;
  const item = hop.item === undefined ? {} : { item: hop.item };
  if (proposalChannel.hasSubscribers) {
    const event: ProposalEvent = {
      type: "proposal-end",
      runId: hop.runId,
      nodeId: hop.nodeId,
      ...item,
      backend: hop.backend,
      source: hop.source,
      verdict: gate.verdict,
      // A tool name outside the candidates is model text: redacted like everything deputy emits.
      ...(typeof proposal?.name === "string" ? { tool: redactText(proposal.name) } : {}),
      confidence: proposal?.confidence ?? null,
      latencyMs: hop.latencyMs,
    };
    proposalChannel.publish(event);
  }
  if (!sink) return;
  const trace: DelegateTrace = {
    runId: hop.runId,
    nodeId: hop.nodeId,
    ...item,
    instruction: hop.instruction,
    facts: hop.facts,
    tools: hop.tools,
    proposal: proposal ?? null,
    verdict: gate.verdict,
    ...(gate.call ? { finalCall: gate.call } : {}),
    backend: hop.backend,
    latencyMs: hop.latencyMs,
    time: new Date().toISOString(),
    source: hop.source,
    ...(gate.error ? { error: { code: gate.error.code, message: gate.error.message } } : {}),
  };
  await writeTrace(sink, trace);
}
