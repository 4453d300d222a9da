import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.DelegateBackendError");

/** The codes of {@link DelegateBackendError}. */
export type DelegateBackendErrorCode =
  | "DELEGATE_BACKEND"
  | "DELEGATE_CONNECTION"
  | "DELEGATE_HTTP"
  | "DELEGATE_TIMEOUT"
  | "DELEGATE_ABORTED"
  | "DELEGATE_CLOSED"
  | "DELEGATE_UNAVAILABLE"
  | "DELEGATE_NO_CONTEXT"
  | "DISTILLED_TOOLS_CHANGED"
  | "DISTILLED_INPUT_CHANGED";

/** A delegate backend could not answer: connection refused, HTTP error, timeout, unparseable output. */
export class DelegateBackendError extends DeputyError<DelegateBackendErrorCode> {
  readonly backend: string;
  /** The model's raw answer, when there was one (kept for the trace). */
  readonly raw: string | undefined;

  constructor(
    backend: string,
    message: string,
    options?: { cause?: unknown; raw?: string; code?: DelegateBackendErrorCode },
  ) {
    super(options?.code ?? "DELEGATE_BACKEND", message, options);
    markError(this, marker);
    this.backend = backend;
    this.raw = options?.raw;
  }

  /** True for a DelegateBackendError from this copy of the package or another. */
  static override isInstance(error: unknown): error is DelegateBackendError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { backend: this.backend } };
  }
}
