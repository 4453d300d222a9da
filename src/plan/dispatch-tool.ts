import { DeputyError, serializeError, type SerializedError } from "../errors/deputy-error.js";
import { ToolError } from "../errors/tool-error.js";
import { validateValue } from "../schema/validator.js";
import type { Tool } from "../tools/define-tool.js";
import type { RetryPolicy } from "./plan-schema.js";
import type { WorkUnit } from "./node-executor.js";

/** How a tool dispatch ended. */
export type DispatchResult = { ok: true; value: unknown; attempts: number } | { ok: false; error: SerializedError; attempts: number };

/** Checks arguments against the tool's schema; `undefined` when they fit. */
export function checkToolArgs(tool: Tool, args: unknown): ToolError | undefined {
  const result = validateValue(tool.parameters, args);
  if (result.ok) return undefined;
  return new ToolError("TOOL_ARGS_INVALID", tool.name, `Arguments for "${tool.name}" do not fit its schema: ${result.issues.join("; ")}`, {
    issues: result.issues,
  });
}

/**
 * Calls a tool with the node's retry and timeout: the tool gets an AbortSignal that fires on the timeout or
 * when the run is aborted, and a tool that ignores it is abandoned (the unit fails) when it fires.
 */
export async function dispatchTool(
  tool: Tool,
  args: Record<string, unknown>,
  unit: WorkUnit,
  retry: RetryPolicy,
  timeoutSeconds: number | undefined,
): Promise<DispatchResult> {
  const idempotencyKey =
    unit.itemIndex === undefined ? `${unit.runId}/${unit.nodeId}` : `${unit.runId}/${unit.nodeId}/${unit.itemIndex}`;
  let lastError: SerializedError = { code: "ERROR", message: "not attempted" };
  for (let attempt = 1; attempt <= retry.max_attempts; attempt++) {
    if (unit.signal.aborted) return { ok: false, error: abortError(unit.signal), attempts: attempt - 1 };
    const signal =
      timeoutSeconds === undefined ? unit.signal : AbortSignal.any([unit.signal, AbortSignal.timeout(timeoutSeconds * 1000)]);
    try {
      const value = await raceAbort(
        Promise.resolve().then(() =>
          tool.run(args, {
            signal,
            idempotencyKey,
            runId: unit.runId,
            nodeId: unit.nodeId,
            ...(unit.itemIndex === undefined ? {} : { itemIndex: unit.itemIndex }),
            attempt,
          }),
        ),
        signal,
      );
      return { ok: true, value, attempts: attempt };
    } catch (error) {
      lastError = signal.aborted && !unit.signal.aborted ? timeoutError(tool.name, timeoutSeconds!) : serializeError(error);
      if (unit.signal.aborted) return { ok: false, error: abortError(unit.signal), attempts: attempt };
    }
    if (attempt < retry.max_attempts && retry.backoff_seconds > 0) {
      await sleep(retry.backoff_seconds * 1000 * 2 ** (attempt - 1), unit.signal);
    }
  }
  return { ok: false, error: lastError, attempts: retry.max_attempts };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function timeoutError(tool: string, seconds: number): SerializedError {
  return { code: "TIMEOUT", message: `Tool "${tool}" did not finish within ${seconds}s.` };
}

function abortError(signal: AbortSignal): SerializedError {
  const reason = signal.reason as unknown;
  if (DeputyError.isInstance(reason)) return reason.toJSON();
  return { code: "ABORTED", message: reason instanceof Error ? reason.message : "The run was aborted." };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
