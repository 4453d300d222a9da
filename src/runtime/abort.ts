import { DeputyError, type SerializedError } from "../errors/deputy-error.js";

/** True when an abort reason is a timeout (ours, or `AbortSignal.timeout`'s). */
export function isTimeoutReason(reason: unknown): boolean {
  return (reason as { name?: unknown } | undefined)?.name === "TimeoutError";
}

/**
 * What an aborted unit of work records: the reason itself when it is a deputy error (it carries its code),
 * else `ABORTED` with the reason's message.
 */
export function abortedError(signal: AbortSignal): SerializedError {
  const reason = signal.reason as unknown;
  if (DeputyError.isInstance(reason)) return reason.toJSON();
  return { code: "ABORTED", message: reason instanceof Error ? reason.message : "The run was aborted." };
}
