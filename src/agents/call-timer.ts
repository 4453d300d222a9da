import { BudgetExceededError, type BudgetViolation } from "../errors/budget-exceeded-error.js";
import { deadline } from "../runtime/deadline.js";
import { effectiveTimeout } from "./budget.js";
import type { AnyBinding } from "./types.js";
import type { Frame } from "./frame.js";

/** What the calling model reads when a delegated call ran out of time. */
export interface TimeoutAnswer {
  error: "timeout";
  limit: "timeout";
  allowed: number;
  used: number;
  message: string;
}

/** The per-call timeout of a delegated call (to an agent or a plan). @internal */
export interface CallTimer {
  /** The tighter of the delegation's and the agent's `timeout`, in seconds. */
  readonly timeout: number | undefined;
  /** Aborted when the timeout passes. */
  readonly signal: AbortSignal;
  /** True once the timeout fired. */
  timedOut(): boolean;
  clear(): void;
  /**
   * The answer for a call stopped by the timeout: `{ error: "timeout", … }`, or a thrown `BudgetExceededError`
   * under the `"raise"` policy of whichever budget set the limit.
   */
  expired(elapsedSeconds: number, message: string): TimeoutAnswer;
}

/** Starts the timer of one delegated call; clear it when the call ends. @internal */
export function startCallTimer(frame: Frame, binding: AnyBinding): CallTimer {
  const timeout = effectiveTimeout(binding.budget.timeout, frame.budget.timeout);
  const scope =
    binding.budget.timeout !== undefined && binding.budget.timeout === timeout ? "delegation" : "agent";
  const limit = deadline(undefined, timeout === undefined ? undefined : timeout * 1000, {
    reason: () => new DOMException(`\`${binding.tool}\` exceeded its ${timeout} s timeout`, "TimeoutError"),
  });
  return {
    timeout,
    signal: limit.signal,
    timedOut: limit.expired,
    clear: limit.clear,
    expired(elapsedSeconds, message) {
      const violation: BudgetViolation = {
        limit: "timeout",
        allowed: timeout!,
        used: Math.round(elapsedSeconds * 1000) / 1000,
        scope,
        agent: frame.agent,
        tool: binding.tool,
      };
      const policy =
        (scope === "delegation" ? binding.budget.onExceeded : undefined) ?? frame.budget.onExceeded ?? "stop";
      if (policy === "raise") throw new BudgetExceededError(violation, message);
      return {
        error: "timeout",
        limit: "timeout",
        allowed: violation.allowed,
        used: violation.used,
        message,
      };
    },
  };
}
