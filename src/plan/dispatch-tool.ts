import { DeputyError, serializeError, type SerializedError } from "../errors/deputy-error.js";
import { ToolError } from "../errors/tool-error.js";
import { validateValue } from "../schema/validator.js";
import type { Tool, ToolContext } from "../tools/define-tool.js";
import type { RetryPolicy } from "./plan-schema.js";
import type { WorkUnit } from "./node-executor.js";

/** How a tool dispatch ended. */
export type DispatchResult =
  { ok: true; value: unknown; attempts: number } | { ok: false; error: SerializedError; attempts: number };

/** Checks arguments against the tool's schema; `undefined` when they fit. */
export function checkToolArgs(tool: Tool, args: unknown): ToolError | undefined {
  const result = validateValue(tool.parameters, args);
  if (result.ok) return undefined;
  return new ToolError(
    "TOOL_ARGS_INVALID",
    tool.name,
    `Arguments for "${tool.name}" do not fit its schema: ${result.issues.join("; ")}`,
    {
      issues: result.issues,
    },
  );
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
    unit.itemIndex === undefined
      ? `${unit.runId}/${unit.nodeId}`
      : `${unit.runId}/${unit.nodeId}/${unit.itemIndex}`;
  let lastError: SerializedError = { code: "ERROR", message: "not attempted" };
  for (let attempt = 1; attempt <= retry.max_attempts; attempt++) {
    if (unit.signal.aborted) return { ok: false, error: abortError(unit.signal), attempts: attempt - 1 };
    // A timer we own rather than AbortSignal.timeout inside AbortSignal.any: the latter can be garbage-collected
    // before it fires (nodejs/node#57736), and then a hung tool would hang the node.
    let timer: NodeJS.Timeout | undefined;
    let signal = unit.signal;
    if (timeoutSeconds !== undefined) {
      const controller = new AbortController();
      timer = setTimeout(
        () => controller.abort(new DOMException(`timed out after ${timeoutSeconds}s`, "TimeoutError")),
        timeoutSeconds * 1000,
      );
      signal = AbortSignal.any([unit.signal, controller.signal]);
    }
    const ctx: ToolContext = { signal, idempotencyKey, runId: unit.runId, nodeId: unit.nodeId, attempt };
    if (unit.itemIndex !== undefined) ctx.itemIndex = unit.itemIndex;
    try {
      const result = tool.run(args, ctx);
      // A synchronous tool costs no extra turn; an async one is abandoned when the signal fires.
      const value = isPromiseLike(result) ? await raceAbort(result, signal) : result;
      return { ok: true, value, attempts: attempt };
    } catch (error) {
      lastError =
        signal.aborted && !unit.signal.aborted
          ? timeoutError(tool.name, timeoutSeconds!)
          : serializeError(error);
      if (unit.signal.aborted) return { ok: false, error: abortError(unit.signal), attempts: attempt };
    } finally {
      clearTimeout(timer);
    }
    if (attempt < retry.max_attempts && retry.backoff_seconds > 0) {
      await sleep(retry.backoff_seconds * 1000 * 2 ** (attempt - 1), unit.signal);
    }
  }
  return { ok: false, error: lastError, attempts: retry.max_attempts };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}

// One abort listener per signal, however many dispatches wait on it: thousands of in-flight items share
// the run's signal, and an EventTarget listener each would cost more than the items themselves.
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.then(undefined, () => {}); // the tool's own rejection is expected now; never leave it unhandled
    return Promise.reject(signal.reason);
  }
  let set = waiters.get(signal);
  if (!set) {
    const created = new Set<(reason: unknown) => void>();
    waiters.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const reject of created) reject(signal.reason);
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  const pending = set;
  return new Promise<T>((resolve, reject) => {
    pending.add(reject);
    promise.then(
      (v) => {
        pending.delete(reject);
        resolve(v);
      },
      (e) => {
        pending.delete(reject);
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
