import type { ExecutionHost } from "../plan/node-executor.js";
import type { CallScope } from "./call-scope.js";

/**
 * What agent nodes and escalate_to agents read from the host besides the engine's `agents`, declared here so the
 * engine (src/plan) imports nothing from agents/; the composition root fills it (`DeputyHost`, `compose/host.ts`).
 */
export interface AgentCapabilities {
  /**
   * The delegated call the run executes inside (an agent's `delegateToPlan`), absent for a top-level run: the
   * plan's agents then spend from the calling agent's remaining budgets and count toward its `maxDepth`.
   */
  budgetScope?: CallScope;
}

/** A host with the agent nodes' capabilities. */
export type AgentHost = ExecutionHost & AgentCapabilities;

/** The host as agent nodes see it: `budgetScope` is optional, so any host is one. */
export function agentHost(host: ExecutionHost): AgentHost {
  return host as AgentHost;
}
