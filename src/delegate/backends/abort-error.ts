import { DelegateBackendError } from "../../errors/index.js";

/** The error a proposal ends with when its signal aborts (the gate's `backend_error`). */
export function abortError(backend: string, signal: AbortSignal): DelegateBackendError {
  const reason = signal.reason as { name?: string; message?: string } | undefined;
  const timeout = reason?.name === "TimeoutError";
  return new DelegateBackendError(
    backend,
    timeout
      ? `${backend} timed out`
      : `${backend} was aborted${reason?.message ? `: ${reason.message}` : ""}`,
    { cause: signal.reason, code: timeout ? "DELEGATE_TIMEOUT" : "DELEGATE_ABORTED" },
  );
}
