import { DeputyError } from "../errors/deputy-error.js";
import { admitCall } from "./admit-call.js";
import { startCallTimer } from "./call-timer.js";
import type { AnyBinding, CallContext } from "./types.js";
import { publishDelegationStart, type DelegationStatus } from "./events.js";
import type { Frame, ParentLink } from "./frame.js";
import { emptyUsage } from "./usage.js";

/** How a call's work ended, as its `deputy:delegation` event and the calling model see it. @internal */
export interface CallEnd {
  status: DelegationStatus;
  issues?: string[];
  /** What the calling model reads. */
  answer: unknown;
  /** Thrown instead of answering (a declared result failing under `onInvalid: "raise"`). */
  raise?: Error;
}

/** What differs between a call to an agent and a call to a plan. @internal */
export interface CallTarget<R> {
  /** The target's action in events (`run` for a plan). */
  action: string;
  /** What the arguments failed to match, for the model: `contract` or `inputs`. */
  argumentsOf: string;
  /** The events' `provider` and `model` (for a plan: `plan` and its name). */
  provider: string;
  model: string;
  /** A plan run's id, for the events. */
  runId?: string;
  /**
   * Runs the work under `signal` (the caller's, and the call's timeout). Spend flows into `link` (and every
   * ancestor) as it happens.
   */
  run(args: Record<string, unknown>, link: ParentLink, signal: AbortSignal): Promise<R>;
  /** A budget with `onExceeded: "raise"` that ran out inside the work (checked first when it returns). */
  raised?(): Error | undefined;
  /** Whether a timeout that fired while the work still returned counts (a plan ends `cancelled` instead of throwing). */
  timeoutAfterReturn?: boolean;
  /** What the model reads when the call timed out. */
  timeoutMessage(timeoutSeconds: number | undefined): string;
  /** Turns the work's result into the call's end. */
  settle(result: R): CallEnd;
}

/**
 * The lifecycle of one delegated call, the same for a call to an agent and a call to a plan, in order: drop
 * invented keys and check the arguments (`invalid_arguments`), check every budget that applies
 * (`budget_exceeded`, or throw on `"raise"`), record the call in the ledgers (one call against this frame, the
 * delegation and every ancestor's ceiling), publish `deputy:delegation-start`, run the work one level deeper under
 * the call's timeout, record its duration, and publish `deputy:delegation` with the status (`ok`, `timed_out`,
 * `error`, or what `settle` says) and the running ledgers. Our own refusals, definition errors and the caller's
 * abort end the caller's generation (thrown); a target's failure is answered as `delegate_failed`.
 *
 * @internal
 */
export async function runDelegatedCall<R>(
  frame: Frame,
  binding: AnyBinding,
  rawArgs: unknown,
  ctx: CallContext,
  target: CallTarget<R>,
): Promise<unknown> {
  const admission = admitCall(frame, binding, rawArgs, ctx.newId, target.action, target.argumentsOf);
  if (!admission.admitted) return admission.answer;
  const { base, finish } = admission;
  const args = admission.args;
  const { provider, model } = target;
  const runId = target.runId === undefined ? {} : { runId: target.runId };

  const link: ParentLink = { frame, binding, callId: ctx.newId(), usage: emptyUsage(), cost: 0 };
  const started = ctx.now();
  frame.recordCallStart(binding.tool, started);
  publishDelegationStart({ ...base, callId: link.callId, arguments: args, provider, model, ...runId });

  const timer = startCallTimer(frame, binding);
  let elapsed = 0;
  const stop = () => {
    elapsed = (ctx.now() - started) / 1000;
    frame.recordCallEnd(binding.tool, elapsed);
  };
  const ended = (status: DelegationStatus, issues?: string[]) =>
    finish({
      callId: link.callId,
      arguments: args,
      provider,
      model,
      ...runId,
      durationMs: Math.round(elapsed * 1000),
      usage: link.usage,
      cost: link.cost,
      status,
      ...(issues ? { issues } : {}),
    });
  const timedOut = () => {
    ended("timed_out");
    return timer.expired(elapsed, target.timeoutMessage(timer.timeout));
  };

  let result: R;
  try {
    result = await target.run(args, link, AbortSignal.any([ctx.signal, timer.signal]));
  } catch (error) {
    stop();
    if (timer.timedOut() && !ctx.signal.aborted) return timedOut();
    const text = error instanceof Error ? error.message : String(error);
    ended("error", [text]);
    // Our own refusals, declared-output failures, definition errors and the caller's abort end the generation;
    // a target's provider or store failing is reported to the calling model, which can answer without it.
    if (ctx.signal.aborted || DeputyError.isInstance(error)) throw error;
    return { error: "delegate_failed", message: `\`${binding.tool}\` failed: ${text}` };
  } finally {
    timer.clear();
  }
  stop();

  const raised = target.raised?.();
  if (raised) {
    // A budget with onExceeded "raise" ran out inside: the caller's generation ends.
    ended("error", [raised.message]);
    throw raised;
  }
  if (ctx.signal.aborted) {
    ended("error", ["aborted"]);
    ctx.signal.throwIfAborted();
  }
  if (target.timeoutAfterReturn && timer.timedOut()) return timedOut();

  const end = target.settle(result);
  ended(end.status, end.issues);
  if (end.raise) throw end.raise;
  return end.answer;
}
