import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { abortedError } from "./abort.js";
import { abortWaiters, isPromiseLike } from "./race-abort.js";
import { retryWithDeadline, type RetryOptions } from "./retry.js";
import { ToolError } from "../errors/tool-error.js";
import { compileSchema, formatIssues, type ValidateFunction } from "../schema/validator.js";

import type { Tool, ToolContext } from "../tools/define-tool.js";

/** The unit of work a dispatch belongs to (a plan's `WorkUnit` fits): it keys the idempotency key. */
export interface DispatchUnit {
  runId: string;
  nodeId: string;
  itemIndex?: number;
  /** Aborts the dispatch (the run's signal). */
  signal: AbortSignal;
}

/** A node's `retry` (a plan's `RetryPolicy` fits). */
export interface DispatchRetry {
  max_attempts: number;
  backoff_seconds: number;
}

/** How a tool dispatch ended. */
export type DispatchResult =
  { ok: true; value: unknown; attempts: number } | { ok: false; error: SerializedError; attempts: number };

/** Checks arguments against the tool's schema (`validate`: its compiled validator); `undefined` when they fit. */
export function checkToolArgs(
  tool: Tool,
  args: unknown,
  validate: ValidateFunction = compileSchema(tool.parameters),
): ToolError | undefined {
  if (validate(args)) return undefined;
  const issues = formatIssues(validate.errors ?? []);
  return new ToolError(
    "TOOL_ARGS_INVALID",
    tool.name,
    `Arguments for "${tool.name}" do not fit its schema: ${issues.join("; ")}`,
    { issues },
  );
}

/**
 * Calls a tool with the node's retry and timeout: the tool gets an AbortSignal that fires on the timeout or
 * when the run is aborted, and a tool that ignores it is abandoned (the unit fails) when it fires. Shared by the
 * tool, delegate and agent executors (it lives in runtime/ so that none of them imports another's folder).
 */
export async function dispatchTool(
  tool: Tool,
  args: Record<string, unknown>,
  unit: DispatchUnit,
  retry: DispatchRetry,
  timeoutSeconds: number | undefined,
): Promise<DispatchResult> {
  const idempotencyKey =
    unit.itemIndex === undefined
      ? `${unit.runId}/${unit.nodeId}`
      : `${unit.runId}/${unit.nodeId}/${unit.itemIndex}`;
  const options: RetryOptions = {
    attempts: retry.max_attempts,
    backoffMs: retry.backoff_seconds * 1000,
    signal: unit.signal,
  };
  if (timeoutSeconds !== undefined) {
    options.timeoutMs = timeoutSeconds * 1000;
    options.timeoutReason = () => new DOMException(`timed out after ${timeoutSeconds}s`, "TimeoutError");
  }
  const outcome = await retryWithDeadline(options, (attempt, signal) => {
    const ctx: ToolContext = { signal, idempotencyKey, runId: unit.runId, nodeId: unit.nodeId, attempt };
    if (unit.itemIndex !== undefined) ctx.itemIndex = unit.itemIndex;
    return tool.run(args, ctx);
  });
  if (outcome.ok) return outcome;
  if (outcome.aborted) return { ok: false, error: abortedError(unit.signal), attempts: outcome.attempts };
  const error = outcome.timedOut ? timeoutError(tool.name, timeoutSeconds!) : serializeError(outcome.error);
  return { ok: false, error, attempts: outcome.attempts };
}

/**
 * {@link dispatchTool} for a hot path, with no promise of its own: its result, mapped by `onOk` or `onFail`, is
 * returned when it is ready at once, or else `undefined` is returned and `later(result, unit)` is called exactly
 * once, from a later turn. With one attempt and no timeout, a tool that returns a value (or throws) is answered at
 * once, and one that returns a promise is raced against the unit's signal as `dispatchTool` races it (a tool
 * that ignores the signal is abandoned when it fires); with retries or a timeout it is `dispatchTool`.
 * `onOk`, `onFail` and `later` must not throw.
 */
export function dispatchToolThen<R, U extends DispatchUnit>(
  tool: Tool,
  args: Record<string, unknown>,
  unit: U,
  retry: DispatchRetry,
  timeoutSeconds: number | undefined,
  onOk: (value: unknown, attempts: number) => R,
  onFail: (error: SerializedError, attempts: number) => R,
  later: (result: R, unit: U) => void,
): R | undefined {
  if (retry.max_attempts !== 1 || timeoutSeconds !== undefined) {
    void dispatchTool(tool, args, unit, retry, timeoutSeconds).then((r) =>
      later(r.ok ? onOk(r.value, r.attempts) : onFail(r.error, r.attempts), unit),
    );
    return undefined;
  }
  const { signal } = unit;
  if (signal.aborted) return onFail(abortedError(signal), 0);
  let result: unknown;
  try {
    result = tool.run(args, toolContext(unit, signal));
  } catch (error) {
    return onFail(signal.aborted ? abortedError(signal) : serializeError(error), 1);
  }
  if (!isPromiseLike(result)) return onOk(result, 1);
  // Whichever comes first, the tool's answer or the signal, is the result; the other is ignored. The handler of
  // a rejection is also the abort waiter: called by the signal, it finds the signal aborted.
  const waiting = abortWaiters(signal);
  let settled = false;
  const failed = (error: unknown) => {
    if (settled) return;
    settled = true;
    waiting.delete(failed);
    later(onFail(signal.aborted ? abortedError(signal) : serializeError(error), 1), unit);
  };
  waiting.add(failed);
  result.then((value) => {
    if (settled) return;
    settled = true;
    waiting.delete(failed);
    later(onOk(value, 1), unit);
  }, failed);
  return undefined;
}

/**
 * The context of a tool's first attempt, built as one object literal (no property added afterwards: that would
 * cost an extra allocation per call); the `runId/nodeId/` prefix of its idempotency key is kept between calls
 * of the same node.
 */
function toolContext(unit: DispatchUnit, signal: AbortSignal): ToolContext {
  const { runId, nodeId, itemIndex } = unit;
  if (itemIndex === undefined)
    return { signal, idempotencyKey: `${runId}/${nodeId}`, runId, nodeId, attempt: 1 };
  if (runId !== prefixRunId || nodeId !== prefixNodeId) {
    prefixRunId = runId;
    prefixNodeId = nodeId;
    prefix = `${runId}/${nodeId}/`;
  }
  return { signal, idempotencyKey: prefix + itemIndex, runId, nodeId, attempt: 1, itemIndex };
}

let prefixRunId: string | undefined;
let prefixNodeId: string | undefined;
let prefix = "";

function timeoutError(tool: string, seconds: number): SerializedError {
  return { code: "TIMEOUT", message: `Tool "${tool}" did not finish within ${seconds}s.` };
}
