import type { GateResult } from "./accept-gate.js";
import { proposalChannel, type ProposalEvent } from "./proposal-channel.js";
import type { Proposal } from "./protocol.js";
import type { DelegateTask, RunCoordinates } from "../records/delegate-task.js";
import type { Hop, ProposalSource } from "../records/hop.js";
import { redactText } from "../traces/redact.js";
import type { DelegateTrace, TraceSink } from "../traces/trace.js";
import { writeTrace } from "../traces/write-trace.js";

export type { ProposalSource } from "../records/hop.js";

/** One judged proposal, before it becomes a {@link Hop}: the proposal (if any), the gate's answer and who made it. */
export interface JudgedHop {
  proposal: Proposal | undefined;
  gate: GateResult;
  backend: string;
  source: ProposalSource;
  latencyMs: number;
}

/** The hop a judged proposal of `task` makes (a trace, less its time and run coordinates). */
export function toHop(task: DelegateTask, judged: JudgedHop): Hop {
  const { proposal, gate } = judged;
  return {
    instruction: task.instruction,
    facts: task.facts,
    tools: task.tools,
    proposal: proposal ?? null,
    verdict: gate.verdict,
    ...(gate.call ? { finalCall: gate.call } : {}),
    backend: judged.backend,
    latencyMs: judged.latencyMs,
    source: judged.source,
    ...(gate.error ? { error: { code: gate.error.code, message: gate.error.message } } : {}),
    ...(gate.trust ? { trust: gate.trust } : {}),
  };
}

/**
 * Records one judged proposal: publishes it on `deputy:proposal` (small, no instruction, facts or arguments) and
 * writes its trace to the sink (redacted by the sink; never throws).
 */
export async function recordProposal(
  sink: TraceSink | undefined,
  where: RunCoordinates,
  task: DelegateTask,
  judged: JudgedHop,
): Promise<void> {
  const { proposal, gate } = judged;
  const item = where.item === undefined ? {} : { item: where.item };
  if (proposalChannel.hasSubscribers) {
    const event: ProposalEvent = {
      type: "proposal-end",
      runId: where.runId,
      nodeId: where.nodeId,
      ...item,
      backend: judged.backend,
      source: judged.source,
      verdict: gate.verdict,
      // A tool name outside the candidates is model text: redacted like everything deputy emits.
      ...(typeof proposal?.name === "string" ? { tool: redactText(proposal.name) } : {}),
      confidence: proposal?.confidence ?? null,
      latencyMs: judged.latencyMs,
      ...(proposal?.cached ? { cached: true } : {}),
    };
    proposalChannel.publish(event);
  }
  if (!sink) return;
  const { source, error, trust, ...hop } = toHop(task, judged);
  // The keys in the order trace files have always had them: the hop, its time, then who proposed and the error.
  const trace: DelegateTrace = {
    runId: where.runId,
    nodeId: where.nodeId,
    ...item,
    ...hop,
    time: new Date().toISOString(),
    source,
    ...(error ? { error } : {}),
    ...(trust ? { trust } : {}),
  };
  await writeTrace(sink, trace);
}
