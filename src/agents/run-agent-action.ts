import type { LedgerTotals } from "./ledger.js";
import type { Agent, AgentResult, AgentRunOptions } from "./types.js";

/** What {@link runAgentAction} returns: the value to store, and what it cost. */
export interface AgentActionOutcome {
  /** `data` when the action declares `returns`, else the answer's text. */
  value: unknown;
  result: AgentResult;
  /**
   * Everything the action spent: `calls` = delegated calls (nested included), `tokens` and `cost` = the agent's
   * own requests plus its delegations, `duration` = wall-clock seconds of the whole run.
   */
  spend: LedgerTotals;
}

/**
 * Runs one action of an agent for a caller that is not a model — a plan's `agent` node — and returns the value
 * with its spend. Errors (`BudgetExceededError`, `InvalidResultError`, aborts, provider failures) are thrown.
 *
 * @example
 * const { value, spend } = await runAgentAction(agents[node.agent], node.action, input, { signal: unit.signal });
 */
export async function runAgentAction(
  agent: Agent,
  action: string,
  input: unknown,
  options: AgentRunOptions = {},
): Promise<AgentActionOutcome> {
  const now = options._internal?.now ?? (() => performance.now());
  const started = now();
  const result = await agent.run(action, input, { ...options, _internal: { ...options._internal, now } });
  return {
    value: result.data !== undefined ? result.data : result.text,
    result,
    spend: {
      calls: result.ledger.calls,
      tokens: result.usage.totalTokens + result.ledger.tokens,
      cost: Math.round((result.cost + result.ledger.cost) * 1e9) / 1e9,
      duration: Math.round(((now() - started) / 1000) * 1000) / 1000,
    },
  };
}
