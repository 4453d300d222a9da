import type { JsonSchema } from "../../schema/json-schema.js";
import type { DelegateNode } from "../../plan/plan-schema.js";
import type { WorkUnit } from "../../plan/node-executor.js";
import type { Proposal, ToolSpec } from "../protocol.js";

/**
 * The `ExecutionHost.services` key under which the agents part installs its {@link EscalateToHandler}. With no
 * handler installed, a node with `escalate_to` pauses for a person like any escalation (validation warns).
 */
export const ESCALATE_TO_SERVICE = "deputy.delegate.escalateTo";

/** What an `escalate_to` agent is asked when a delegate's proposal was rejected. */
export interface EscalateToRequest {
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
  proposal: Proposal | undefined;
  signal: AbortSignal;
}

/**
 * The agent's answer: a call (it goes through the same accept gate, minus the confidence checks) or a decline
 * (`name: null`, and the unit pauses for a person). Throwing also leaves the decision to a person.
 */
export type EscalateToHandler = (request: EscalateToRequest) => Promise<{
  name: string | null;
  arguments?: Record<string, unknown>;
  /** Shown in traces as the backend. Default `agent:<name>`. */
  backend?: string;
  /** What asking the agent spent (summed per node in the manifest). */
  spend?: { calls: number; tokens: number; cost: number; duration: number };
}>;
