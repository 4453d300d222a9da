import { DeputyError, serializeError, type SerializedError } from "../errors/deputy-error.js";
import { compileGuard } from "../runtime/cel-guard.js";
import {
  commit,
  executeUnit,
  makeUnit,
  openEscalation,
  storeKey,
  type EngineContext,
} from "./engine-context.js";
import type { UnitOutcome } from "./node-executor.js";
import type { BaseNode } from "./plan-schema.js";
import { addSpend, buildManifest, type RunManifest } from "./run-manifest.js";
import type { NodeRecord, NodeStatus, RunStatus, Spend } from "../store/run-state.js";
import type { RunMutation } from "../store/run-store.js";
import { runForEach } from "./run-for-each.js";
import type { TemplateScope } from "../runtime/template.js";

const DONE: ReadonlySet<NodeStatus> = new Set(["ok", "partial", "skipped"]);
const FAILED: ReadonlySet<NodeStatus> = new Set(["error", "blocked"]);

/**
 * The run loop: start every ready node (all dependencies done) while fewer than `max_parallel_tasks` run;
 * when a node ends, record it, release its dependents, or block them if it failed. Escalated nodes hold
 * their dependents back until the run is resumed.
 */
export async function runEngine(ctx: EngineContext, resumed: boolean): Promise<RunManifest> {
  const started = ctx.now().getTime();
  const { plan, state } = ctx;
  ctx.emit({ type: "run-start", runId: state.run.runId, plan: plan.name, nodes: plan.nodes.length, resumed });
  await commit(ctx, [{ kind: "status", status: "running", updatedAt: ctx.now().toISOString() }]);

  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const dependents = new Map<string, string[]>(plan.nodes.map((n) => [n.id, []]));
  const waitingOn = new Map<string, number>();
  for (const node of plan.nodes) {
    ctx.statuses[node.id] = state.nodes[node.id]?.status ?? "pending";
    const error = state.nodes[node.id]?.error;
    if (error) ctx.errors[node.id] = error;
    for (const dep of node.depends_on) dependents.get(dep)!.push(node.id);
  }
  const ready: BaseNode[] = [];
  for (const node of plan.nodes) {
    if (DONE.has(ctx.statuses[node.id]!)) continue;
    const open = node.depends_on.filter((d) => !DONE.has(ctx.statuses[d]!)).length;
    waitingOn.set(node.id, open);
    if (open === 0) ready.push(node);
  }

  const max = plan.metadata.max_parallel_tasks;
  let running = 0;
  // A failure outside any node (the store cannot commit) stops the run: no new nodes, in-flight ones finish,
  // then it is thrown to the caller instead of crashing the process from a floating promise.
  let fatal: { error: unknown } | undefined;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (running < max && ready.length > 0 && !ctx.signal.aborted && !ctx.stop.aborted && !fatal) {
        const node = ready.shift()!;
        running++;
        void runNode(ctx, node)
          .then(async (status) => {
            const blockedBatch: RunMutation[] = [];
            if (DONE.has(status)) {
              for (const id of dependents.get(node.id)!) {
                const left = waitingOn.get(id)! - 1;
                waitingOn.set(id, left);
                if (left === 0 && ctx.statuses[id] !== "blocked") ready.push(byId.get(id)!);
              }
            } else if (FAILED.has(status) && !ctx.stop.aborted) {
              // (After a stop, dependents stay pending: the failure may be the stop's own doing.)
              block(ctx, node.id, dependents, blockedBatch);
            }
            if (blockedBatch.length) await commit(ctx, blockedBatch);
          })
          .catch((error: unknown) => {
            fatal ??= { error };
          })
          .finally(() => {
            running--;
            pump();
          });
      }
      if (running === 0 && (ready.length === 0 || ctx.signal.aborted || ctx.stop.aborted || fatal)) resolve();
    };
    pump();
  });
  if (fatal) {
    const error = serializeError(fatal.error);
    try {
      await commit(ctx, [
        {
          kind: "status",
          status: "failed",
          updatedAt: ctx.now().toISOString(),
          error,
          eventSeq: ctx.emit.sequence.last,
        },
      ]);
    } catch {
      // The store already failed: the run's own failure is what the caller gets.
    }
    throw fatal.error;
  }

  const status = runStatus(ctx);
  const error =
    status === "interrupted"
      ? interruptReason(ctx.stop)
      : ctx.signal.aborted
        ? abortReason(ctx.signal)
        : undefined;
  // The run-end's number is stored with the status it reports (nothing else runs between the two), so a resume
  // numbers its events on from it.
  await commit(ctx, [
    {
      kind: "status",
      status,
      updatedAt: ctx.now().toISOString(),
      ...(error ? { error } : {}),
      eventSeq: ctx.emit.sequence.last + 1,
    },
  ]);
  ctx.emit({
    type: "run-end",
    runId: state.run.runId,
    status,
    durationMs: ctx.now().getTime() - started,
    ...(state.run.error ? { error: state.run.error } : {}),
  });
  return buildManifest(state, plan.nodes, ctx.nodeTypes);
}

function block(
  ctx: EngineContext,
  failedId: string,
  dependents: Map<string, string[]>,
  batch: RunMutation[],
) {
  const queue = [...dependents.get(failedId)!];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (ctx.statuses[id] === "blocked") continue;
    ctx.statuses[id] = "blocked";
    const error = { code: "BLOCKED", message: `Not run: dependency "${failedId}" did not succeed.` };
    ctx.errors[id] = error;
    batch.push({
      kind: "node",
      nodeId: id,
      record: { status: "blocked", storedKeys: [], attempts: 0, error },
    });
    queue.push(...dependents.get(id)!);
  }
}

function runStatus(ctx: EngineContext): RunStatus {
  const all = Object.values(ctx.statuses);
  const finished = all.every((s) => DONE.has(s) || s === "escalated");
  if (ctx.stop.aborted && !finished) return "interrupted";
  if (ctx.signal.aborted) return "cancelled";
  if (all.some((s) => FAILED.has(s))) return "failed";
  if (all.some((s) => s === "escalated" || s === "pending")) return "escalated";
  if (all.some((s) => s === "partial")) return "partial";
  return "completed";
}

function interruptReason(stop: AbortSignal): SerializedError {
  const reason = stop.reason as unknown;
  const why = reason instanceof Error && reason.name !== "AbortError" ? ` (${reason.message})` : "";
  return {
    code: "INTERRUPTED",
    message: `The run was stopped before it finished${why}; resume it to go on.`,
  };
}

function abortReason(signal: AbortSignal): SerializedError {
  const reason = signal.reason as unknown;
  if (DeputyError.isInstance(reason)) return reason.toJSON();
  if (reason instanceof Error && reason.name === "TimeoutError") {
    return { code: "RUN_TIMEOUT", message: "The run passed its execution_timeout." };
  }
  return { code: "ABORTED", message: reason instanceof Error ? reason.message : "The run was aborted." };
}

/** Runs one node to its final status for this attempt and records it. */
async function runNode(ctx: EngineContext, node: BaseNode): Promise<NodeStatus> {
  const startedAt = ctx.now();
  const previous = ctx.state.nodes[node.id];
  ctx.statuses[node.id] = "running";
  ctx.emit({ type: "node-start", runId: ctx.state.run.runId, nodeId: node.id });
  const scope: TemplateScope = {
    artifacts: ctx.state.artifacts,
    ...(ctx.inputs ? { inputs: ctx.inputs } : {}),
  };
  let record: NodeRecord;
  const batch: RunMutation[] = [];
  try {
    if (
      node.when &&
      !compileGuard(node.when)({
        artifacts: ctx.state.artifacts,
        status: ctx.statuses,
        errors: ctx.errors,
        inputs: ctx.inputs ?? {},
      })
    ) {
      record = { status: "skipped", storedKeys: [], attempts: 0, details: { reason: "when is false" } };
    } else if (node.for_each) {
      record = await runForEach(ctx, node, scope);
    } else if (previous?.status === "escalated" && previous.escalation && !previous.escalation.resolution) {
      record = previous; // still waiting for a decision
    } else {
      const unit = makeUnit(ctx, node, scope, ctx.signal);
      if (previous?.escalation) {
        unit.escalation = previous.escalation;
        if (previous.escalation.resolution) unit.resolution = previous.escalation.resolution;
      }
      const outcome = await executeUnit(ctx, node, unit, ctx.nodeTypes.executorOf(node.type));
      record = nodeRecordFor(ctx, node, scope, outcome, batch);
    }
  } catch (error) {
    record = { status: "error", storedKeys: [], attempts: 1, error: serializeError(error) };
  }
  const endedAt = ctx.now();
  record = {
    ...record,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
  };
  batch.push({ kind: "node", nodeId: node.id, record });
  await commit(ctx, batch);
  ctx.statuses[node.id] = record.status;
  if (record.error) ctx.errors[node.id] = record.error;
  else delete ctx.errors[node.id];
  if (ctx.emit.active()) {
    const spend = nodeSpend(ctx, node, record);
    ctx.emit({
      type: "node-end",
      runId: ctx.state.run.runId,
      nodeId: node.id,
      status: record.status,
      durationMs: record.durationMs!,
      ...(record.error ? { error: ctx.state.nodes[node.id]?.error ?? record.error } : {}),
      ...(spend ? { spend } : {}),
      ...(record.details?.cached === true ? { cached: true } : {}),
    });
  }
  return record.status;
}

/** What a node spent, summed over its items (for its `node-end`). */
function nodeSpend(ctx: EngineContext, node: BaseNode, record: NodeRecord): Spend | undefined {
  const type = ctx.nodeTypes.get(node.type);
  let spend = addSpend(undefined, record.details, type);
  for (const item of Object.values(ctx.state.items[node.id] ?? {}))
    spend = addSpend(spend, item.details, type);
  return spend;
}

function nodeRecordFor(
  ctx: EngineContext,
  node: BaseNode,
  scope: TemplateScope,
  outcome: UnitOutcome,
  batch: RunMutation[],
): NodeRecord {
  const details = outcome.details ? { details: outcome.details } : {};
  const attempts = typeof outcome.details?.attempts === "number" ? outcome.details.attempts : 1;
  switch (outcome.status) {
    case "ok": {
      const key = storeKey(node, scope);
      batch.push({ kind: "artifact", key, value: outcome.value });
      return { status: "ok", storedKeys: [key], attempts, ...details };
    }
    case "error":
      return { status: "error", storedKeys: [], attempts, error: outcome.error, ...details };
    case "skipped":
      return { status: "skipped", storedKeys: [], attempts, ...details };
    case "escalated":
      openEscalation(ctx, node.id, undefined, outcome.escalation);
      return {
        status: "escalated",
        storedKeys: [],
        attempts,
        escalation: { ...outcome.escalation, nodeId: node.id, createdAt: ctx.now().toISOString() },
        ...details,
      };
  }
}
