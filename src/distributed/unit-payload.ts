import type { SerializedError } from "../errors/deputy-error.js";
import type { BaseNode } from "../plan/plan-schema.js";
import type { Escalation, NodeStatus, Resolution } from "../store/run-state.js";
import type { WorkUnit } from "../plan/node-executor.js";

/** One unit of work as a job carries it: plain JSON, everything a worker needs besides the plan. */
export interface UnitPayload {
  /** The idempotency key, `runId/nodeId` or `runId/nodeId/itemIndex`: the job's key and its result's. */
  key: string;
  runId: string;
  nodeId: string;
  itemIndex?: number;
  /** The for_each alias and item, when the unit is an item. */
  alias?: string;
  item?: unknown;
  index?: number;
  /** The artifacts the node's templates and guards refer to (all of them when that cannot be told). */
  artifacts: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  statuses: Record<string, NodeStatus>;
  errors: Record<string, SerializedError>;
  escalation?: Escalation;
  resolution?: Resolution;
}

/** The idempotency key of a unit (the one tools see as `ctx.idempotencyKey`). */
export function unitKey(unit: Pick<WorkUnit, "runId" | "nodeId" | "itemIndex">): string {
  return unit.itemIndex === undefined
    ? `${unit.runId}/${unit.nodeId}`
    : `${unit.runId}/${unit.nodeId}/${unit.itemIndex}`;
}

const cache = new WeakMap<BaseNode, string[] | "all">();

/**
 * The artifact keys a node reads while it runs a unit (`{artifacts.KEY…}` in its templates, `artifacts.KEY` in
 * its guards); `"all"` when the node names `artifacts` in any other way. `for_each` and `when` are left out:
 * the coordinator evaluates them.
 */
export function artifactsReadBy(node: BaseNode): string[] | "all" {
  let keys = cache.get(node);
  if (keys) return keys;
  const { for_each: _forEach, when: _when, ...rest } = node;
  const text = JSON.stringify(rest);
  const named = new Set<string>();
  let other = false;
  for (const m of text.matchAll(/artifacts(\.([A-Za-z0-9_-]+))?/g)) {
    if (m[2] === undefined) other = true;
    else named.add(m[2]);
  }
  keys = other ? "all" : [...named];
  cache.set(node, keys);
  return keys;
}

/** The payload of a unit: only the artifacts its node reads travel with it. */
export function toPayload(node: BaseNode, unit: WorkUnit): UnitPayload {
  const read = artifactsReadBy(node);
  const all = unit.scope.artifacts;
  const artifacts: Record<string, unknown> = {};
  if (read === "all") Object.assign(artifacts, all);
  else for (const k of read) if (Object.hasOwn(all, k)) artifacts[k] = all[k];
  const payload: UnitPayload = {
    key: unitKey(unit),
    runId: unit.runId,
    nodeId: unit.nodeId,
    artifacts,
    statuses: unit.statuses,
    errors: unit.errors,
  };
  if (unit.itemIndex !== undefined) payload.itemIndex = unit.itemIndex;
  if (unit.scope.alias !== undefined) payload.alias = unit.scope.alias;
  if ("item" in unit.scope) payload.item = unit.scope.item;
  if (unit.scope.index !== undefined) payload.index = unit.scope.index;
  if (unit.scope.inputs) payload.inputs = unit.scope.inputs;
  if (unit.escalation) payload.escalation = unit.escalation;
  if (unit.resolution) payload.resolution = unit.resolution;
  return payload;
}
