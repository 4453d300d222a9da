import { DeputyError } from "./deputy-error.js";

/** A delegate backend could not answer: connection refused, HTTP error, timeout, unparseable output. */
export class DelegateBackendError extends DeputyError {
  readonly backend: string;
  /** The model's raw answer, when there was one (kept for the trace). */
  readonly raw: string | undefined;

  constructor(backend: string, message: string, options?: { cause?: unknown; raw?: string; code?: string }) {
    super(options?.code ?? "DELEGATE_BACKEND", message, options);
    this.backend = backend;
    this.raw = options?.raw;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { backend: this.backend } };
  }
}
