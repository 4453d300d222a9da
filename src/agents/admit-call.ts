import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import { checkArguments } from "./arguments.js";
import type { AnyBinding } from "./types.js";
import {
  publishDelegation,
  publishRefused,
  type DelegationEvent,
  type DelegationEventBase,
} from "./events.js";
import { findRefusal, refusalAnswer, type Frame } from "./frame.js";
import { emptyUsage } from "./usage.js";

/** Publishes a call's `deputy:delegation` event with the running ledgers. */
export type FinishEvent = (
  event: Omit<DelegationEvent, keyof DelegationEventBase | "ledger" | "delegationLedger">,
) => void;

/** Whether a delegated call may run: the checked arguments, or what the calling model reads instead. @internal */
export type Admission =
  | { admitted: false; answer: unknown }
  | { admitted: true; args: Record<string, unknown>; base: DelegationEventBase; finish: FinishEvent };

/**
 * The first steps of every delegated call — to an agent or to a plan — in order: drop invented keys and check the
 * arguments (`invalid_arguments` back to the model), then check every budget that applies (`budget_exceeded`,
 * or throw `BudgetExceededError` on `"raise"`). A refused call is not recorded.
 *
 * @internal
 */
export function admitCall(
  frame: Frame,
  binding: AnyBinding,
  rawArgs: unknown,
  newId: () => string,
  action: string,
  /** What the arguments failed to match, for the model: `contract` or `inputs`. */
  what: string,
): Admission {
  const base: DelegationEventBase = {
    traceId: frame.traceId,
    agent: frame.agent,
    delegate: binding.target.name,
    action,
    tool: binding.tool,
    depth: frame.depth + 1,
    parentCallId: frame.parent?.callId,
  };
  const finish: FinishEvent = (event) =>
    publishDelegation({
      ...base,
      ...event,
      ledger: frame.ledger.toJSON(),
      delegationLedger: frame.ledgerFor(binding.tool).toJSON(),
    });

  const args = checkArguments(binding.parameters, rawArgs);
  if (!args.ok) {
    finish({
      callId: newId(),
      arguments: rawArgs,
      provider: undefined,
      model: undefined,
      durationMs: 0,
      usage: emptyUsage(),
      cost: 0,
      status: "invalid_arguments",
      issues: args.issues,
    });
    return {
      admitted: false,
      answer: {
        error: "invalid_arguments",
        issues: args.issues,
        message: `The arguments do not match \`${binding.tool}\`'s ${what}. Fix them and call it again.`,
      },
    };
  }

  const refusal = findRefusal(frame, binding);
  if (refusal) {
    const { limit, allowed, used, scope } = refusal.violation;
    publishRefused({
      ...base,
      limit,
      allowed,
      used,
      scope,
      budgetOwner: refusal.budgetOwner,
      policy: refusal.policy,
    });
    if (refusal.policy === "raise") throw new BudgetExceededError(refusal.violation);
    return { admitted: false, answer: refusalAnswer(refusal) };
  }
  return { admitted: true, args: args.value, base, finish };
}
