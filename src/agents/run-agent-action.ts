import { randomUUID } from "node:crypto";
import { mergeBackends, resolveBackend } from "./backend.js";
import { scopedPlace, type CallScope } from "./call-scope.js";
import type { Frame } from "./frame.js";
import type { LedgerTotals } from "./ledger.js";
import { runAction } from "./run-action.js";
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

/** Options of {@link runAgentAction}. */
export interface AgentActionOptions extends AgentRunOptions {
  /**
   * Called once, as the run starts, with a function that reads what the run has spent so far — also after it
   * failed or was abandoned, so a caller that retries can account every attempt.
   */
  onMeter?: (spent: () => LedgerTotals) => void;
  /** @internal The delegated call the run happens inside (a plan's agent node under `delegateToPlan`). */
  scope?: CallScope;
}

/**
 * Runs one action of an agent for a caller that is not a model — a plan's `agent` node — and returns the value
 * with its spend. Errors (`BudgetExceededError`, `InvalidResultError`, aborts, provider failures) are thrown.
 * Inside a delegated call (`scope`) the agent runs like a sub-agent of that call: one level deeper, its spend
 * rolling up into every ancestor's ledgers and its delegations checked against their limits.
 *
 * @example
 * const { value, spend } = await runAgentAction(agents[node.agent], node.action, input, { signal: unit.signal });
 */
export async function runAgentAction(
  agent: Agent,
  action: string,
  input: unknown,
  options: AgentActionOptions = {},
): Promise<AgentActionOutcome> {
  const now = options._internal?.now ?? (() => performance.now());
  const started = now();
  let ended: number | undefined;
  let frame: Frame | undefined;
  const spent = (): LedgerTotals => ({
    calls: frame?.ledger.calls ?? 0,
    tokens: (frame?.ownUsage.totalTokens ?? 0) + (frame?.ledger.tokens ?? 0),
    cost: Math.round(((frame?.ownCost ?? 0) + (frame?.ledger.cost ?? 0)) * 1e9) / 1e9,
    duration: Math.round((ended ?? now()) - started) / 1000,
  });
  options.onMeter?.(spent);
  const { scope } = options;
  const place = scope
    ? scopedPlace(scope)
    : { depth: 0, parent: undefined, traceId: options.traceId ?? randomUUID() };
  try {
    const { frame: _frame, ...result } = await runAction(agent, action, input, {
      backend: resolveBackend(mergeBackends(agent.backend, options.backend), agent.name),
      params: options.params ?? {},
      signal: options.signal ?? new AbortController().signal,
      now,
      newId: options._internal?.newId ?? (() => randomUUID()),
      ...place,
      rates: scope?.rates,
      returns: undefined,
      onFrame: (f) => (frame = f),
    });
    ended = now();
    return { value: result.data !== undefined ? result.data : result.text, result, spend: spent() };
  } finally {
    ended ??= now();
  }
}
