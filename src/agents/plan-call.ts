import type { RunManifest } from "../plan/run-manifest.js";
import { newRunId, startRun } from "../plan/run-plan.js";
import type { Spend } from "../records/spend.js";
import { runDelegatedCall, type CallEnd } from "./call-lifecycle.js";
import type { CallContext, PlanBinding } from "./types.js";
import { callScope } from "./call-scope.js";
import type { Frame } from "./frame.js";

/** The `provider` of a plan delegation's events (the plan's name is the `model`). */
export const PLAN_PROVIDER = "plan";

/**
 * One call of a plan delegation, through the lifecycle every delegated call shares (`runDelegatedCall`:
 * arguments, budgets, ledgers, events, timeout, depth): the plan runs with the arguments as its inputs under the
 * call's budget scope (the plan's agents spend from this call and every ancestor as they run, and count toward
 * `maxDepth`). Answers with the artifact the plan `returns`, or `plan_failed` / `plan_escalated`.
 *
 * @internal
 */
export async function callPlan(
  frame: Frame,
  binding: PlanBinding,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<unknown> {
  const runId = newRunId(new Date());
  let scope: ReturnType<typeof callScope> | undefined;
  return runDelegatedCall<RunManifest>(frame, binding, rawArgs, ctx, {
    action: "run",
    argumentsOf: "inputs",
    provider: PLAN_PROVIDER,
    model: binding.target.name,
    runId,
    run: (args, link, signal) => {
      scope = callScope(link, binding.budget.rates ?? frame.budget.rates, ctx.now, ctx.newId);
      return startRun(binding.plan, {
        ...binding.run,
        inputs: args,
        signal,
        runId,
        host: { ...binding.run.host, budgetScope: scope },
      });
    },
    raised: () => scope?.raised,
    // The engine does not throw on its signal: the run ends cancelled, and the call counts as timed out.
    timeoutAfterReturn: true,
    timeoutMessage: (timeout) =>
      `\`${binding.tool}\` did not finish within ${timeout} s and was stopped (run ${runId}). Do not retry this tool; answer with the information you already have.`,
    settle: (manifest) => settlePlan(binding, runId, manifest),
  });
}

/** The end of a plan call from its manifest: the returned artifact, `plan_escalated` or `plan_failed`. */
function settlePlan(binding: PlanBinding, runId: string, manifest: RunManifest): CallEnd {
  if (manifest.status === "escalated") {
    const escalations = Object.values(manifest.nodes).flatMap((n) =>
      n.escalations.map((e) => ({
        nodeId: e.nodeId,
        ...(e.item !== undefined ? { item: e.item } : {}),
        verdict: e.verdict,
        reason: e.reason,
      })),
    );
    return {
      status: "escalated",
      issues: escalations.map((e) => `${e.nodeId}${e.item !== undefined ? `[${e.item}]` : ""}: ${e.verdict}`),
      answer: {
        error: "plan_escalated",
        runId,
        escalations,
        message: `\`${binding.tool}\` is waiting for a person to decide (run ${runId}). Do not retry this tool; answer with what you have and say that the rest is pending.`,
      },
    };
  }
  const errors = planErrors(manifest);
  if (manifest.status === "completed" && manifest.artifacts[binding.returns] !== undefined) {
    return { status: "ok", answer: manifest.artifacts[binding.returns] };
  }
  if (manifest.status === "completed") {
    errors.push({
      code: "NO_RESULT",
      message: `The plan completed without storing "${binding.returns}" (the node that stores it was skipped).`,
    });
  }
  return {
    status: "error",
    issues: errors.map((e) =>
      e.nodeId === undefined
        ? e.message
        : `${e.nodeId}${e.item === undefined ? "" : `[${e.item}]`}: ${e.message}`,
    ),
    answer: {
      error: "plan_failed",
      status: manifest.status,
      errors,
      message: `\`${binding.tool}\` did not complete (${manifest.status}). Do not retry it with the same arguments; answer with the information you already have.`,
    },
  };
}

/** Tokens and USD the plan's nodes spent (agent nodes, delegate escalations), summed over the manifest. */
export function planSpend(manifest: RunManifest): Pick<Spend, "tokens" | "cost"> {
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
