import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.ExpressionError");

/** The codes of {@link ExpressionError}. */
export type ExpressionErrorCode =
  "CEL_INVALID" | "CEL_EVAL" | "TEMPLATE_INVALID" | "TEMPLATE_MISSING" | "SELECT_INVALID" | "SELECT_MISSING";

/** A template, select path or CEL guard is malformed, or refers to something that is not there. */
export class ExpressionError extends DeputyError<ExpressionErrorCode> {
  constructor(code: ExpressionErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
  }

  /** True for a ExpressionError from this copy of the package or another. */
  static override isInstance(error: unknown): error is ExpressionError {
    return isMarked(error, marker);
  }
}
