/** Finds registered agents by name (for the node types that name one); what an agent is, the agents part knows. */
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

/**
 * The spending context a run inherits when an agent delegated to it: nested delegations inside the run spend
 * from it and count toward its depth. The agents part implements it; the engine only carries it.
 */
export interface BudgetScope {
  /** How deep in nested delegation the run is (1 for a plan an agent delegated to). */
  readonly depth: number;
}
