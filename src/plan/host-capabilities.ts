import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { WorkUnit } from "./node-executor.js";
import type { DelegateNode } from "./plan-schema.js";

/** Finds registered agents by name (agent nodes, `escalate_to`); what an agent is, the agents part knows. */
export interface AgentResolver {
  /** The agent registered under `name`, or `undefined`. */
  find(name: string): unknown;
  /** Every registered name (for did-you-mean hints). */
  names(): string[];
}

/** An agent resolver over a plain record of agents by name. */
export function agentResolver(agents: Readonly<Record<string, unknown>> = {}): AgentResolver {
  return {
    find: (name) => (Object.hasOwn(agents, name) ? agents[name] : undefined),
    names: () => Object.keys(agents),
  };
}

/** A call as proposed (by a delegate, an agent or a person), before the accept gate judged it. */
export interface ProposedCall {
  name: string | null;
  arguments?: Record<string, unknown>;
  confidence: number | null;
}

/** What an {@link EscalationHandler} is asked when a delegate node's proposal was rejected. */
export interface EscalationRequest {
  /** The node's `escalate_to` (a registered agent's name). */
  agent: string;
  node: DelegateNode;
  unit: WorkUnit;
  /** The resolved instruction and facts, the candidate tools and their proposal schema. */
  instruction: string;
  facts: Record<string, unknown>;
  tools: ToolSpec[];
  schema: JsonSchema;
  /** Why the delegate's proposal was rejected, and the proposal (when there was one). */
  verdict: string;
  reason: string;
  proposal: ProposedCall | undefined;
  signal: AbortSignal;
}

/** An {@link EscalationHandler}'s answer: a call, or a decline (`name: null`). */
export interface EscalationAnswer {
  name: string | null;
  arguments?: Record<string, unknown>;
  /** The arguments as the agent wrote them, when they are not a JSON object (the gate judges `invalid_args`). */
  unparsedArguments?: string;
  /** Shown in traces as the backend. Default `agent:<name>`. */
  backend?: string;
  /** What deciding spent (summed per node in the manifest). */
  spend?: { calls: number; tokens: number; cost: number; duration: number };
}

/**
 * Decides a rejected delegate proposal in place of a person (`escalate_to`). Its call goes through the same
 * accept gate (minus the confidence checks) and runs only if accepted; a decline or a throw leaves the decision
 * to a person (the unit pauses). The composition root installs one that asks the named agent.
 */
export type EscalationHandler = (request: EscalationRequest) => Promise<EscalationAnswer>;

/**
 * The spending context a run inherits when an agent delegated to it: nested delegations inside the run spend
 * from it and count toward its depth. The agents part implements it; the engine only carries it.
 */
export interface BudgetScope {
  /** How deep in nested delegation the run is (1 for a plan an agent delegated to). */
  readonly depth: number;
}
