import { InvalidResultError } from "../errors/invalid-result-error.js";
import { mergeBackends, resolveBackend } from "./backend.js";
import { runDelegatedCall } from "./call-lifecycle.js";
import type { Frame } from "./frame.js";
import { checkResult } from "./result.js";
import type { AgentResult, AnyBinding, CallContext } from "./types.js";

/**
 * One delegated call to an agent, through the lifecycle every delegated call shares (`runDelegatedCall`:
 * arguments, budgets, ledgers, events, timeout, depth): the sub-agent runs its action on the backend chosen at
 * the call site, and a declared result is validated (`invalid_result`, or throw on `onInvalid: "raise"`).
 * A plan binding runs its own call (`callPlan`, the same lifecycle). Returns what the calling model reads.
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
  const backend = resolveBackend(mergeBackends(binding.target.backend, binding.backend), binding.target.name);
  return runDelegatedCall<AgentResult>(frame, binding, rawArgs, ctx, {
    action: binding.action,
    argumentsOf: "contract",
    provider: backend.model.provider,
    model: backend.model.modelId,
    run: (args, link, signal) =>
      ctx.run(binding.target, binding.action, args, {
        backend,
        params: typeof binding.params === "function" ? binding.params(ctx.caller) : (binding.params ?? {}),
        signal,
        traceId: frame.traceId,
        now: ctx.now,
        newId: ctx.newId,
        depth: frame.depth + 1,
        parent: link,
        rates: binding.budget.rates ?? frame.budget.rates,
        returns: binding.returns
          ? { schema: binding.returns, name: `${binding.tool}_result`, validate: false }
          : undefined,
      }),
    timeoutMessage: (timeout) =>
      `\`${binding.tool}\` did not answer within ${timeout} s and was stopped. Do not retry this tool; answer with the information you already have.`,
    settle(result) {
      if (!binding.returns) return { status: "ok", answer: result.text };
      const check = checkResult(binding.returns, result.text, binding.tool);
      if (check.ok) return { status: "ok", answer: check.data };
      const { ok: _ok, ...invalid } = check;
      return {
        status: "invalid_result",
        issues: check.issues,
        answer: invalid,
        ...(binding.onInvalid === "raise" ? { raise: new InvalidResultError(binding.tool, invalid) } : {}),
      };
    },
  });
}
