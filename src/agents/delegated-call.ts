import { DeputyError } from "../errors/deputy-error.js";
import { InvalidResultError } from "../errors/invalid-result-error.js";
import { admitCall } from "./admit-call.js";
import { mergeBackends, resolveBackend } from "./backend.js";
import { startCallTimer } from "./call-timer.js";
import type { ParentContext } from "./delegate-to.js";
import type { AnyBinding } from "./delegate-to-plan.js";
import { publishDelegateStart, type DelegateEvent } from "./events.js";
import type { Frame, ParentLink } from "./frame.js";
import { checkResult } from "./result.js";
import type { RunSetup } from "./run-action.js";
import type { Agent, AgentResult } from "./types.js";
import { emptyUsage } from "./usage.js";

/** Runs a sub-agent's action (injected, so this file and the runner do not import each other). @internal */
export type RunSub = (agent: Agent, action: string, input: unknown, setup: RunSetup) => Promise<AgentResult>;

/** @internal */
export interface CallContext {
  signal: AbortSignal;
  caller: ParentContext;
  now: () => number;
  newId: () => string;
  run: RunSub;
}

/**
 * One delegated call, in order: drop invented keys and check the arguments (`invalid_arguments` back to the
 * model), check every budget that applies (`budget_exceeded`, or throw on `"raise"`), record the call, run the
 * sub-agent under its timeout (`timeout`), validate a declared result (`invalid_result`, or throw), record
 * duration, publish the event. Returns what the calling model reads.
 *
 * @internal
 */
export async function callDelegation(
  frame: Frame,
  binding: AnyBinding,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<unknown> {
  if ("plan" in binding) return binding.call(frame, rawArgs, ctx);
  const admission = admitCall(frame, binding, rawArgs, ctx.newId, binding.action, "contract");
  if (!admission.admitted) return admission.answer;
  const { base, finish } = admission;
  const args = { value: admission.args };

  const backend = resolveBackend(mergeBackends(binding.target.backend, binding.backend), binding.target.name);
  const params = typeof binding.params === "function" ? binding.params(ctx.caller) : (binding.params ?? {});
  const link: ParentLink = { frame, binding, callId: ctx.newId(), usage: emptyUsage(), cost: 0 };
  const provider = backend.model.provider;
  const model = backend.model.modelId;
  const started = ctx.now();
  frame.recordCallStart(binding.tool, started);
  publishDelegateStart({ ...base, callId: link.callId, arguments: args.value, provider, model });

  const timer = startCallTimer(frame, binding);
  const seconds = () => (ctx.now() - started) / 1000;
  let elapsed = 0;
  const ended = (status: DelegateEvent["status"], issues?: string[]) =>
    finish({
      callId: link.callId,
      arguments: args.value,
      provider,
      model,
      durationMs: Math.round(elapsed * 1000),
      usage: link.usage,
      cost: link.cost,
      status,
      ...(issues ? { issues } : {}),
    });

  let result: AgentResult;
  try {
    result = await ctx.run(binding.target, binding.action, args.value, {
      backend,
      params,
      signal: AbortSignal.any([ctx.signal, timer.signal]),
      traceId: frame.traceId,
      now: ctx.now,
      newId: ctx.newId,
      depth: frame.depth + 1,
      parent: link,
      rates: binding.budget.rates ?? frame.budget.rates,
      returns: binding.returns
        ? { schema: binding.returns, name: `${binding.tool}_result`, validate: false }
        : undefined,
    });
  } catch (error) {
    elapsed = seconds();
    frame.recordCallEnd(binding.tool, elapsed);
    if (timer.timedOut() && !ctx.signal.aborted) {
      ended("timed_out");
      return timer.expired(
        elapsed,
        `\`${binding.tool}\` did not answer within ${timer.timeout} s and was stopped. Do not retry this tool; answer with the information you already have.`,
      );
    }
    const text = error instanceof Error ? error.message : String(error);
    ended("error", [text]);
    // Our own refusals, declared-output failures, definition errors and the caller's abort end the generation;
    // a sub-agent's provider failing is reported to the calling model, which can answer without it.
    if (ctx.signal.aborted || DeputyError.isInstance(error)) throw error;
    return { error: "delegate_failed", message: `\`${binding.tool}\` failed: ${text}` };
  } finally {
    timer.clear();
  }
  elapsed = seconds();
  frame.recordCallEnd(binding.tool, elapsed);

  if (!binding.returns) {
    ended("ok");
    return result.text;
  }
  const check = checkResult(binding.returns, result.text, binding.tool);
  if (check.ok) {
    ended("ok");
    return check.data;
  }
  ended("invalid_result", check.issues);
  const { ok: _ok, ...invalid } = check;
  if (binding.onInvalid === "raise") throw new InvalidResultError(binding.tool, invalid);
  return invalid;
}
