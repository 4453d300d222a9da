import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.RunError");

/** The codes of {@link RunError}. */
export type RunErrorCode =
  | "RUN_NOT_FOUND"
  | "RUN_EXISTS"
  | "PLAN_FINGERPRINT_CHANGED"
  | "TOOLS_CHANGED"
  | "RESOLUTION_INVALID"
  | "STORE_CLOSED"
  | "SQLITE_UNAVAILABLE"
  | "STORE_UNAVAILABLE"
  | "STORE_UNREACHABLE"
  | "RUN_LEASED"
  | "LEASE_LOST"
  | "LEASE_INVALID"
  | "RESUME_RUNNING"
  | "RESUME_INVALID"
  | "STORE_NOT_FOUND"
  | "UNIT_HANDED_BACK"
  | "RUN_AWAITS_APPROVAL";

/** A run cannot be started or resumed (unknown run id, changed plan, resolution that does not fit). */
export class RunError extends DeputyError<RunErrorCode> {
  readonly runId: string | undefined;

  constructor(code: RunErrorCode, message: string, options?: { runId?: string; cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
    this.runId = options?.runId;
  }

  /** True for a RunError from this copy of the package or another. */
  static override isInstance(error: unknown): error is RunError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { runId: this.runId } };
  }
}
