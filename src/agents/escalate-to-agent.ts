import type { WorkUnit } from "../plan/node-executor.js";
import type { EscalationAnswer, EscalationRequest } from "../records/escalation.js";
import { resolveBackend } from "./backend.js";
import { admitInScope, scopedPlace } from "./call-scope.js";
import { agentHost } from "./host-capabilities.js";
import { Frame } from "./frame.js";
import { costOf } from "./pricing.js";
import { runToolLoop, type LoopTool } from "./tool-loop.js";
import { isAgent } from "./types.js";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";

const SYSTEM = [
  "A small, fast model was asked to choose exactly one tool call for the instruction below, and its proposal was",
  "rejected. Decide in its place: call exactly one of the tools with correct arguments taken from the instruction",
  "and facts, or call none and answer DECLINE when no tool fits. Never invent tool names or argument keys.",
].join(" ");

/**
 * What {@link escalateToAgent} reads of a delegate node's escalation request: the escalation's request as
 * records/ declares it, bound to the engine's unit (delegate/'s request adds the node and the proposal schema).
 */
export type AgentEscalationRequest = EscalationRequest<WorkUnit>;

/** The agent's answer: its first call (or a decline), who made it, and what asking spent. */
export type AgentEscalationAnswer = EscalationAnswer & Required<Pick<EscalationAnswer, "backend" | "spend">>;

/**
 * The escalation handler the composition root installs: the named agent sees the delegate's instruction, facts,
 * candidate tools (as tools it may call once, in a single request), the rejected proposal and its verdict. Its
 * first tool call is returned as it was made — not executed here, and whatever its name or arguments: the
 * delegate executor puts it through the same gate (minus the confidence checks), which judges a tool outside the
 * candidates `unknown_tool` and arguments that are not a JSON object `invalid_args`, and dispatches it only if
 * accepted. No call means a decline. Inside a delegated call (the host's budget scope) the question is checked
 * against the caller's remaining budgets first and its tokens spend from every ancestor.
 */
export const escalateToAgent = async (request: AgentEscalationRequest): Promise<AgentEscalationAnswer> => {
  const agent = request.unit.host.agents.find(request.agent);
  if (!isAgent(agent))
    throw new AgentDefinitionError(`escalate_to names "${request.agent}", which is not a registered agent.`, {
      agent: request.agent,
    });
  const scope = agentHost(request.unit.host).budgetScope;
  if (scope) admitInScope(scope, agent.name, "escalate_to");
  const backend = resolveBackend(agent.backend, agent.name);
  const now = scope?.now ?? (() => performance.now());
  const started = now();
  const place = scope ? scopedPlace(scope) : { depth: 0, parent: undefined, traceId: request.unit.runId };
  const frame = new Frame(
    agent.name,
    agent.budget,
    agent.maxDepth,
    place.traceId,
    place.depth,
    place.parent,
    now,
    scope?.rates,
  );
  const tools: LoopTool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    execute: async () => "Recorded. It will be checked and executed by the host.",
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
    onStepUsage: (usage) => frame.recordUsage(usage, costOf(usage, backend.model.modelId, scope?.rates)),
  });
  const spend = {
    calls: 1,
    tokens: frame.ownUsage.totalTokens,
    cost: Math.round(frame.ownCost * 1e9) / 1e9,
    duration: Math.round(now() - started) / 1000,
  };
  const by = `agent:${request.agent}`;
  // The first call as the model made it, not as a tool ran it: the loop answers a name outside the candidates
  // with an error and never runs it, and the gate must see that proposal to judge it.
  const first = result.steps[0]?.toolCalls[0];
  if (!first) return { name: null, backend: by, spend };
  const args = first.input;
  if (typeof args === "object" && args !== null && !Array.isArray(args))
    return { name: first.toolName, arguments: args as Record<string, unknown>, backend: by, spend };
  const raw = typeof args === "string" ? args : JSON.stringify(args);
  return { name: first.toolName, unparsedArguments: raw ?? "", backend: by, spend };
};
