import type { EscalateToHandler } from "../delegate/escalation/escalate-to.js";
import { resolveBackend } from "./backend.js";
import { costOf } from "./pricing.js";
import { runToolLoop, type LoopTool } from "./tool-loop.js";
import { isAgent } from "./types.js";

const SYSTEM = [
  "A small, fast model was asked to choose exactly one tool call for the instruction below, and its proposal was",
  "rejected. Decide in its place: call exactly one of the tools with correct arguments taken from the instruction",
  "and facts, or call none and answer DECLINE when no tool fits. Never invent tool names or argument keys.",
].join(" ");

/**
 * The `escalate_to` handler the agents part installs: the named agent sees the delegate's instruction, facts,
 * candidate tools (as tools it may call once, in a single request), the rejected proposal and its verdict. Its
 * first tool call is returned as the call — not executed here: the delegate executor puts it through the same
 * gate (minus the confidence checks) and dispatches it only if accepted. No call means a decline.
 */
export const escalateToAgent: EscalateToHandler = async (request) => {
  const agent = request.unit.host.agents[request.agent];
  if (!isAgent(agent))
    throw new Error(`escalate_to names "${request.agent}", which is not a registered agent.`);
  const backend = resolveBackend(agent.backend, agent.name);
  const started = performance.now();
  const picked: { name: string; arguments: Record<string, unknown> }[] = [];
  const tools: LoopTool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    execute: async (args) => {
      picked.push({ name: t.name, arguments: (args ?? {}) as Record<string, unknown> });
      return "Recorded. It will be checked and executed by the host.";
    },
  }));
  const instructions = typeof agent.instructions === "string" ? `${agent.instructions}\n\n` : "";
  const rejected = request.proposal
    ? JSON.stringify({
        name: request.proposal.name,
        arguments: request.proposal.arguments,
        confidence: request.proposal.confidence,
      })
    : "(no proposal)";
  const user = [
    `Instruction: ${request.instruction}`,
    `Facts: ${JSON.stringify(request.facts)}`,
    `Rejected proposal: ${rejected}`,
    `Why it was rejected: ${request.verdict} — ${request.reason}`,
  ].join("\n");
  const result = await runToolLoop({
    backend,
    prompt: [
      { role: "system", content: instructions + SYSTEM },
      { role: "user", content: [{ type: "text", text: user }] },
    ],
    tools,
    maxSteps: 1,
    signal: request.signal,
    onStepUsage: () => {},
  });
  const first = picked[0];
  const spend = {
    calls: 1,
    tokens: result.usage.totalTokens,
    cost: costOf(result.usage, backend.model.modelId),
    duration: Math.round(performance.now() - started) / 1000,
  };
  return first
    ? { name: first.name, arguments: first.arguments, backend: `agent:${request.agent}`, spend }
    : { name: null, backend: `agent:${request.agent}`, spend };
};
