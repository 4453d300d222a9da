import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { NodeError } from "../errors/node-error.js";
import type { ExecutionHost, NodeExecutor, UnitOutcome, WorkUnit } from "./node-executor.js";
import type { ExecutionPlan, PlanNode } from "./plan-schema.js";
import type { Emitter } from "./run-events.js";
import type { NodeStatus, StoredRun } from "./run-state.js";
import { applyMutations, type RunMutation, type RunStore } from "./run-store.js";
import { renderString, type TemplateScope } from "../runtime/template.js";

/** Everything one run needs while it goes; one instance per run (or resume). */
export interface EngineContext {
  plan: ExecutionPlan;
  host: ExecutionHost;
  executors: Partial<Record<PlanNode["type"], NodeExecutor<any>>>;
  store: RunStore;
  /** The run's state, kept in step with what was written to the store. */
  state: StoredRun;
  signal: AbortSignal;
  inputs: Record<string, unknown> | undefined;
  now: () => Date;
  emit: Emitter;
  statuses: Record<string, NodeStatus>;
  errors: Record<string, SerializedError>;
}

/** Writes a batch durably (when the plan checkpoints) and applies it to the in-memory state. */
export async function commit(ctx: EngineContext, batch: RunMutation[]): Promise<void> {
  applyMutations(ctx.state, batch);
  if (ctx.plan.metadata.checkpoint) await ctx.store.write(ctx.state.run.runId, batch);
}

/** Runs a unit through its node type's executor; an executor that throws yields an error outcome. */
export async function executeUnit(ctx: EngineContext, node: PlanNode, unit: WorkUnit): Promise<UnitOutcome> {
  const executor = ctx.executors[node.type];
  if (!executor) {
    return {
      status: "error",
      error: { code: "NO_EXECUTOR", message: `No executor for ${node.type} nodes.` },
    };
  }
  try {
    return await executor.execute(node, unit);
  } catch (error) {
    return { status: "error", error: serializeError(error) };
  }
}

/** Makes the unit an executor receives. */
export function makeUnit(
  ctx: EngineContext,
  node: PlanNode,
  scope: TemplateScope,
  signal: AbortSignal,
  itemIndex?: number,
): WorkUnit {
  const unit: WorkUnit = {
    runId: ctx.state.run.runId,
    nodeId: node.id,
    scope,
    signal,
    statuses: ctx.statuses,
    errors: ctx.errors,
    host: ctx.host,
  };
  if (itemIndex !== undefined) unit.itemIndex = itemIndex;
  return unit;
}

/** Renders a node's `store_as` for a scope; the result must be a non-empty string key. */
export function storeKey(node: PlanNode, scope: TemplateScope): string {
  const key = renderString(node.store_as, scope);
  if (typeof key !== "string" || key === "") {
    throw new NodeError(
      "STORE_AS_INVALID",
      `store_as "${node.store_as}" rendered to ${JSON.stringify(key)}, not a key.`,
    );
  }
  return key;
}
