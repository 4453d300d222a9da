import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { NodeError } from "../errors/node-error.js";
import { checkJsonValue } from "../schema/json-value.js";
import type { ExecutionHost, NodeExecutor, UnitDispatcher, UnitOutcome, WorkUnit } from "./node-executor.js";
import type { NodeTypeTable } from "./node-type-table.js";
import type { BaseNode, ExecutionPlan } from "./plan-schema.js";
import type { Emitter } from "./run-events.js";
import type { Judgement } from "../records/verdict.js";
import type { ItemRecord, NodeStatus, StoredRun } from "../store/run-state.js";
import { applyMutations, type RunMutation, type RunStore } from "../store/run-store.js";
import { compileValue, type TemplateScope, type ValueRenderer } from "../runtime/template.js";
import { indexMap, RESERVED_KEYS, setOwn } from "../runtime/own.js";

/** Everything one run needs while it goes; one instance per run (or resume). */
export interface EngineContext {
  plan: ExecutionPlan;
  host: ExecutionHost;
  /** The node types the plan's nodes have, each with its executor. */
  nodeTypes: NodeTypeTable;
  store: RunStore;
  /**
   * Whether commits are written to `store`: the plan checkpoints and the store is one the caller gave. The store
   * a run makes for itself when given none is never read by anyone, so writing to it would only apply every
   * mutation a second time.
   */
  persist: boolean;
  /** The run's state, kept in step with what was written to the store. */
  state: StoredRun;
  signal: AbortSignal;
  /** Stop taking new work (graceful stop); see `RunOptions.stop`. */
  stop: AbortSignal;
  inputs: Record<string, unknown> | undefined;
  now: () => Date;
  /** Scrubs records before they are committed (see `EngineOptions.redact`). */
  redact: ((value: unknown) => unknown) | undefined;
  emit: Emitter;
  statuses: Record<string, NodeStatus>;
  errors: Record<string, SerializedError>;
  /** Where units run when not in this process (distributed runs). */
  dispatcher?: UnitDispatcher;
}

/**
 * Applies a batch to the in-memory state and, when the run persists (see {@link EngineContext.persist}), writes it
 * to the store: then the promise settles when it is written. Nothing to wait for (`undefined`) otherwise, so the
 * hot path of an in-memory run takes no extra turn.
 */
export function commit(ctx: EngineContext, input: RunMutation[]): Promise<void> | undefined {
  const batch = ctx.redact ? input.map((m) => scrubMutation(m, ctx.redact!)) : input;
  applyMutations(ctx.state, batch);
  return ctx.persist ? ctx.store.write(ctx.state.run.runId, batch) : undefined;
}

/**
 * Commits one for_each item (its record, and its value under the record's key): {@link commit} of one `item`
 * mutation, without building the mutation when the run does not persist and the record has nothing to redact.
 */
export function commitItem(
  ctx: EngineContext,
  nodeId: string,
  item: ItemRecord,
  hasValue: boolean,
  value: unknown,
): Promise<void> | undefined {
  // (An item with no free text — most of them — is what the redactor would return unchanged.)
  if (ctx.persist || (ctx.redact && hasFreeText(item))) {
    return commit(ctx, [hasValue ? { kind: "item", nodeId, item, value } : { kind: "item", nodeId, item }]);
  }
  const { state } = ctx;
  (state.items[nodeId] ??= indexMap())[item.index] = item;
  if (hasValue && item.key !== undefined) setOwn(state.artifacts, item.key, value);
  return undefined;
}

/**
 * Runs a unit through `executor` (its node type's, looked up once per node by the caller: a for_each node asks
 * for every item), or hands it to the run's dispatcher.
 */
export function executeUnit(
  ctx: EngineContext,
  node: BaseNode,
  unit: WorkUnit,
  executor: NodeExecutor<any> | undefined,
): Promise<UnitOutcome> {
  return ctx.dispatcher ? ctx.dispatcher.dispatch(node, unit) : executeOn(executor, node, unit);
}

/** Runs a unit through its node type's executor; an executor that throws yields an error outcome. */
export function executeWith(nodeTypes: NodeTypeTable, node: BaseNode, unit: WorkUnit): Promise<UnitOutcome> {
  return executeOn(nodeTypes.executorOf(node.type), node, unit);
}

async function executeOn(
  executor: NodeExecutor<any> | undefined,
  node: BaseNode,
  unit: WorkUnit,
): Promise<UnitOutcome> {
  if (!executor) {
    return {
      status: "error",
      error: { code: "NO_EXECUTOR", message: `No executor for ${node.type} nodes.` },
    };
  }
  let outcome: UnitOutcome;
  try {
    outcome = await executor.execute(node, unit);
  } catch (error) {
    return { status: "error", error: serializeError(error) };
  }
  return checkedOutcome(node, unit, outcome);
}

/**
 * The boundary every outcome passes (`executeWith`, and the for_each path of prepared executors): what a tool, a
 * model or an agent produced becomes run state only if it is JSON data.
 */
export function checkedOutcome(node: BaseNode, unit: WorkUnit, outcome: UnitOutcome): UnitOutcome {
  if (outcome.status === "ok") {
    const problem = checkJsonValue(outcome.value);
    if (problem) {
      return {
        status: "error",
        error: {
          code: "RESULT_NOT_JSON",
          message: `Node "${node.id}"${unit.itemIndex === undefined ? "" : ` item ${unit.itemIndex}`} produced a result that is not JSON data: ${problem.reason} at ${problem.path}.`,
        },
        ...(outcome.details ? { details: outcome.details } : {}),
      };
    }
  }
  return outcome;
}

/** Makes the unit an executor receives. */
export function makeUnit(
  ctx: EngineContext,
  node: BaseNode,
  scope: TemplateScope,
  signal: AbortSignal,
  itemIndex?: number,
): WorkUnit {
  // One literal per shape (a property added afterwards would cost an extra allocation per for_each item).
  const runId = ctx.state.run.runId;
  const { statuses, errors, host } = ctx;
  return itemIndex === undefined
    ? { runId, nodeId: node.id, scope, signal, statuses, errors, host }
    : { runId, nodeId: node.id, scope, signal, statuses, errors, host, itemIndex };
}

/**
 * Renders a node's `store_as` for a scope; the result must be a non-empty string key. `render`: the compiled
 * `store_as`, when the caller renders it many times (for_each).
 */
export function storeKey(
  node: BaseNode,
  scope: TemplateScope,
  render: ValueRenderer = compileValue(node.store_as),
): string {
  const key = render(scope);
  if (typeof key !== "string" || key === "" || RESERVED_KEYS.has(key)) {
    throw new NodeError(
      "STORE_AS_INVALID",
      `store_as "${node.store_as}" rendered to ${JSON.stringify(key)}, not a key.`,
    );
  }
  return key;
}

/**
 * A mutation with its records scrubbed: errors, escalations (reason and proposal) and details are what a backend,
 * a model or a tool wrote in free text, and may carry a secret. Artifacts and item values are the run's data and
 * pass unchanged; so do resolutions (a person's decision, needed as given).
 */
function scrubMutation(m: RunMutation, redact: (value: unknown) => unknown): RunMutation {
  switch (m.kind) {
    case "node":
      return hasFreeText(m.record) ? { ...m, record: scrubRecord(m.record, redact) } : m;
    case "item":
      return hasFreeText(m.item) ? { ...m, item: scrubRecord(m.item, redact) } : m;
    case "status":
      return m.error ? { ...m, error: redact(m.error) as typeof m.error } : m;
    default:
      return m;
  }
}

/** True when a record has any of the fields {@link scrubRecord} scrubs (most items have none). */
function hasFreeText(record: { error?: unknown; escalation?: unknown; details?: unknown }): boolean {
  return record.error !== undefined || record.escalation !== undefined || record.details !== undefined;
}

function scrubRecord<R extends { error?: unknown; escalation?: unknown; details?: unknown }>(
  record: R,
  redact: (value: unknown) => unknown,
): R {
  const out = { ...record };
  if (out.error !== undefined) out.error = redact(out.error) as R["error"];
  if (out.escalation !== undefined) out.escalation = redact(out.escalation) as R["escalation"];
  if (out.details !== undefined) out.details = redact(out.details) as R["details"];
  return out;
}

/** Emits `escalation-open` for an escalation made in this attempt, its reason redacted as the record will be. */
export function openEscalation(
  ctx: EngineContext,
  nodeId: string,
  item: number | undefined,
  escalation: Judgement<string>,
): void {
  if (!ctx.emit.active()) return;
  const reason = ctx.redact ? ctx.redact(escalation.reason) : escalation.reason;
  ctx.emit({
    type: "escalation-open",
    runId: ctx.state.run.runId,
    nodeId,
    ...(item === undefined ? {} : { item }),
    verdict: escalation.verdict,
    reason: typeof reason === "string" ? reason : "",
  });
}
