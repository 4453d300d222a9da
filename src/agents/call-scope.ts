import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import { DeputyError } from "../errors/deputy-error.js";
import { publishRefused } from "./events.js";
import { findAncestorRefusal, type ParentLink } from "./frame.js";
import type { Rates } from "./pricing.js";

/**
 * The budget scope of a plan that runs inside a delegated call: the call's link to the calling agent's frame.
 * Agents the plan runs (agent nodes, `escalate_to` agents) run under that link like a sub-agent of the call: their
 * requests roll up into the call and every ancestor's ledgers, their delegations are checked against every
 * ancestor's limits and `maxDepth`, and a `"raise"` inside the plan ends the caller's generation.
 *
 * @internal
 */
export interface CallScope {
  readonly kind: "deputy.call-scope";
  /** The delegated call the plan runs inside. */
  readonly link: ParentLink;
  /** Rates that price the plan's agents' requests when they have none of their own (the call's). */
  readonly rates: Rates | undefined;
  readonly now: () => number;
  readonly newId: () => string;
  /** The first `BudgetExceededError` raised inside the plan; the call rethrows it once the plan ends. */
  raised: BudgetExceededError | undefined;
}

/** The scope of the call `link`. @internal */
export function callScope(
  link: ParentLink,
  rates: Rates | undefined,
  now: () => number,
  newId: () => string,
): CallScope {
  return { kind: "deputy.call-scope", link, rates, now, newId, raised: undefined };
}

/** Where a run of an agent inside the scope hangs: one level below the calling agent, under its call. */
export function scopedPlace(scope: CallScope): { depth: number; parent: ParentLink; traceId: string } {
  return { depth: scope.link.frame.depth + 1, parent: scope.link, traceId: scope.link.frame.traceId };
}

/**
 * Checks, before an agent inside the scope starts (an agent node's attempt, an `escalate_to` question), the limits
 * of the call and of every ancestor (tokens, cost, duration, their ceilings; the call's own count aside). A refusal
 * is published and thrown as a `BudgetExceededError`, remembered for the call to rethrow under `"raise"`.
 */
export function admitInScope(scope: CallScope, agent: string, action: string): void {
  const { link } = scope;
  const tool = link.binding.tool;
  const refusal = findAncestorRefusal([link, ...link.frame.ancestors()], tool);
  if (!refusal) return;
  const { limit, allowed, used, scope: which } = refusal.violation;
  publishRefused({
    traceId: link.frame.traceId,
    agent: link.frame.agent,
    delegate: agent,
    action,
    tool,
    depth: link.frame.depth + 1,
    parentCallId: link.callId,
    limit,
    allowed,
    used,
    scope: which,
    budgetOwner: refusal.budgetOwner,
    policy: refusal.policy,
  });
  const error = new BudgetExceededError(
    refusal.violation,
    `\`${agent}.${action}\` was not started: the budget of \`${tool}\` is spent (${which} ${limit}: ${used} of ${allowed} used, owned by ${refusal.budgetOwner}).`,
  );
  if (refusal.policy === "raise") noteRaised(scope, error);
  throw error;
}

/** Remembers a `BudgetExceededError` thrown inside the scope under `"raise"`, for the call to rethrow. */
export function noteRaised(scope: CallScope, error: unknown): void {
  if (scope.raised === undefined && DeputyError.isInstance(error) && error.code === "BUDGET_EXCEEDED")
    scope.raised = error as BudgetExceededError;
}
