import { DeputyError } from "../errors/deputy-error.js";
import type { RunManifest } from "../plan/run-manifest.js";
import { newRunId, startRun } from "../plan/run-plan.js";
import { admitCall } from "./admit-call.js";
import { startCallTimer } from "./call-timer.js";
import type { CallContext } from "./delegated-call.js";
import type { PlanBinding } from "./delegate-to-plan.js";
import { publishDelegateStart, type DelegateEvent } from "./events.js";
import { callScope } from "./call-scope.js";
import "./host-capabilities.js";
import type { Frame, ParentLink } from "./frame.js";
import { emptyUsage } from "./usage.js";

/** The `provider` of a plan delegation's events (the plan's name is the `model`). */
export const PLAN_PROVIDER = "plan";

/**
 * One call of a plan delegation, in the same order as a call to an agent: drop invented keys and check the
 * arguments (`invalid_arguments`), check every budget that applies (`budget_exceeded`, or throw on `"raise"`),
 * record the call, run the plan with the arguments as its inputs under the call's timeout (`timeout`) and its
 * budget scope (the plan's agents spend from this call and every ancestor as they run), record duration, publish
 * the events. Answers with the artifact the plan `returns`, or `plan_failed` / `plan_escalated`.
 *
 * @internal
 */
export async function callPlan(
  frame: Frame,
  binding: PlanBinding,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<unknown> {
  const admission = admitCall(frame, binding, rawArgs, ctx.newId, "run", "inputs");
  if (!admission.admitted) return admission.answer;
  const { base, finish } = admission;
  const args = { value: admission.args };

  const link: ParentLink = { frame, binding, callId: ctx.newId(), usage: emptyUsage(), cost: 0 };
  const runId = newRunId(new Date());
  const model = binding.target.name;
  const started = ctx.now();
  frame.recordCallStart(binding.tool, started);
  publishDelegateStart({
    ...base,
    callId: link.callId,
    arguments: args.value,
    provider: PLAN_PROVIDER,
    model,
    runId,
  });

  // The plan's agents (agent nodes, escalate_to agents) run under this call: they spend from it and from every
  // ancestor as they go, and count toward maxDepth.
  const scope = callScope(link, binding.budget.rates ?? frame.budget.rates, ctx.now, ctx.newId);
  const timer = startCallTimer(frame, binding);
  let elapsed = 0;
  const ended = (status: DelegateEvent["status"], issues?: string[]) =>
    finish({
      callId: link.callId,
      arguments: args.value,
      provider: PLAN_PROVIDER,
      model,
      runId,
      durationMs: Math.round(elapsed * 1000),
      usage: link.usage,
      cost: link.cost,
      status,
      ...(issues ? { issues } : {}),
    });

  let manifest: RunManifest;
  try {
    manifest = await startRun(binding.plan, {
      ...binding.run,
      inputs: args.value,
      signal: AbortSignal.any([ctx.signal, timer.signal]),
      runId,
      host: { ...binding.run.host, budgetScope: scope },
    });
  } catch (error) {
    // The plan no longer validates against its tools, or the store failed.
    elapsed = (ctx.now() - started) / 1000;
    frame.recordCallEnd(binding.tool, elapsed);
    const text = error instanceof Error ? error.message : String(error);
    ended("error", [text]);
    if (ctx.signal.aborted || DeputyError.isInstance(error)) throw error;
    return { error: "delegate_failed", message: `\`${binding.tool}\` failed: ${text}` };
  } finally {
    timer.clear();
  }
  elapsed = (ctx.now() - started) / 1000;
  frame.recordCallEnd(binding.tool, elapsed);

  if (scope.raised) {
    // A budget with onExceeded "raise" ran out inside the plan: the caller's generation ends, as for a sub-agent.
    ended("error", [scope.raised.message]);
    throw scope.raised;
  }

  if (ctx.signal.aborted) {
    ended("error", ["aborted"]);
    ctx.signal.throwIfAborted();
  }
  if (timer.timedOut()) {
    ended("timed_out");
    return timer.expired(
      elapsed,
      `\`${binding.tool}\` did not finish within ${timer.timeout} s and was stopped (run ${runId}). Do not retry this tool; answer with the information you already have.`,
    );
  }

  if (manifest.status === "escalated") {
    const escalations = Object.values(manifest.nodes).flatMap((n) =>
      n.escalations.map((e) => ({
        nodeId: e.nodeId,
        ...(e.item !== undefined ? { item: e.item } : {}),
        verdict: e.verdict,
        reason: e.reason,
      })),
    );
    ended(
      "escalated",
      escalations.map((e) => `${e.nodeId}${e.item !== undefined ? `[${e.item}]` : ""}: ${e.verdict}`),
    );
    return {
      error: "plan_escalated",
      runId,
      escalations,
      message: `\`${binding.tool}\` is waiting for a person to decide (run ${runId}). Do not retry this tool; answer with what you have and say that the rest is pending.`,
    };
  }
  const errors = planErrors(manifest);
  if (manifest.status === "completed" && manifest.artifacts[binding.returns] !== undefined) {
    ended("ok");
    return manifest.artifacts[binding.returns];
  }
  if (manifest.status === "completed") {
    errors.push({
      code: "NO_RESULT",
      message: `The plan completed without storing "${binding.returns}" (the node that stores it was skipped).`,
    });
  }
  ended(
    "error",
    errors.map((e) =>
      e.nodeId === undefined
        ? e.message
        : `${e.nodeId}${e.item === undefined ? "" : `[${e.item}]`}: ${e.message}`,
    ),
  );
  return {
    error: "plan_failed",
    status: manifest.status,
    errors,
    message: `\`${binding.tool}\` did not complete (${manifest.status}). Do not retry it with the same arguments; answer with the information you already have.`,
  };
}

/** Tokens and USD the plan's nodes spent (agent nodes, delegate escalations), summed over the manifest. */
export function planSpend(manifest: RunManifest): { tokens: number; cost: number } {
  let tokens = 0;
  let cost = 0;
  for (const node of Object.values(manifest.nodes)) {
    tokens += node.spend?.tokens ?? 0;
    cost += node.spend?.cost ?? 0;
  }
  return { tokens, cost };
}

function planErrors(
  manifest: RunManifest,
): { nodeId?: string; item?: number; code: string; message: string }[] {
  const out: { nodeId?: string; item?: number; code: string; message: string }[] = [];
  if (manifest.error) out.push({ code: manifest.error.code, message: manifest.error.message });
  for (const [nodeId, node] of Object.entries(manifest.nodes)) {
    for (const e of node.errors)
      out.push({
        nodeId,
        ...(e.item !== undefined ? { item: e.item } : {}),
        code: e.code,
        message: e.message,
      });
  }
  return out;
}
