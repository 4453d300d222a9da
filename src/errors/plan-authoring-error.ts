import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.PlanAuthoringError");

/** The codes of {@link PlanAuthoringError}. */
export type PlanAuthoringErrorCode =
  /** The model could not be asked: the provider failed, timed out, or a scripted model ran out of answers. */
  "MODEL_FAILED";

/**
 * Writing a plan with a model could not happen at all. What the model answered is never this error: a bad
 * answer (not JSON, the wrong shape, a tool outside the allowlist) is a list of plan issues.
 */
export class PlanAuthoringError extends DeputyError<PlanAuthoringErrorCode> {
  constructor(code: PlanAuthoringErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
  }

  /** True for a PlanAuthoringError from this copy of the package or another. */
  static override isInstance(error: unknown): error is PlanAuthoringError {
    return isMarked(error, marker);
  }
}
