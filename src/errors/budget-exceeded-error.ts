import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.BudgetExceededError");

/** The codes of {@link BudgetExceededError}. */
export type BudgetExceededErrorCode = "BUDGET_EXCEEDED";

/** Which limit a delegated call ran into (snake_case: the same names the calling model reads). */
export type BudgetLimit = "max_calls" | "max_tokens" | "max_cost" | "max_duration" | "timeout" | "max_depth";

/** A violated budget limit, as plain data. */
export interface BudgetViolation {
  limit: BudgetLimit;
  /** The limit's value (count, tokens, USD or seconds; depth for `max_depth`). */
  allowed: number;
  /** What had been used when the call was refused (or, for `timeout`, how long the call ran). */
  used: number;
  /** `"agent"` for an agent-wide ceiling, `"delegation"` for a per-delegation limit. */
  scope: "agent" | "delegation";
  /** The agent whose budget it is. */
  agent: string;
  /** The tool (delegation) the refused call was for. */
  tool: string;
}

/**
 * A delegated call ran into a budget whose `onExceeded` is `"raise"`: the generation is aborted. With the
 * default `"stop"` the calling model gets `{ error: "budget_exceeded", … }` instead and nothing is thrown.
 */
export class BudgetExceededError extends DeputyError<BudgetExceededErrorCode> {
  readonly violation: BudgetViolation;

  constructor(violation: BudgetViolation, message?: string) {
    super(
      "BUDGET_EXCEEDED",
      message ??
        `Delegation budget exhausted for \`${violation.tool}\` (${violation.scope} ${violation.limit}: ` +
          `${violation.used} of ${violation.allowed} used).`,
    );
    markError(this, marker);
    this.violation = violation;
  }

  /** True for a BudgetExceededError from this copy of the package or another. */
  static override isInstance(error: unknown): error is BudgetExceededError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { ...this.violation } };
  }
}
