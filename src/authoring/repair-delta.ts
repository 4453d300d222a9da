import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
import { validatePlan } from "../plan/validate-plan.js";
import type { ModelWrites } from "../plan/node-type.js";
import type { RepairChange } from "../store/run-state.js";
import {
  checkFieldRule,
  checkToolFields,
  isRepairable,
  modelWritesOf,
  nodeTypeOf,
  normalizedField,
  sameValue,
} from "./model-write-policy.js";

/**
 * The coded issues of a delta, in the order they are checked. A delta with any of them is refused (after the
 * one correction round); so is one with a breach of a field rule its node type declares (`NodeType.modelWrites`:
 * the built-in delegate's lowered threshold and side-effect key); the patched plan's own issues are
 * `validatePlan`'s codes.
 */
export const DELTA_ISSUE_CODES = [
  "invalid_delta", // not `{ "nodes": [ … ] }`, or an entry without a string `id`
  "empty_delta", // no node replaced
  "duplicate_node", // one id replaced twice
  "added_node", // an id the plan does not have: a repair never adds nodes
  "removed_node", // an entry (or a key) asking to remove a node: a repair never removes nodes
  "not_eligible", // a node that did not end `error` or `blocked`: what completed stays done
  "changed_type", // a node becomes another type
  "changed_store_as", // where its result goes: what depends on it reads that key
  "changed_depends_on", // the graph: what completed was computed in this order
  "changed_for_each", // `source`, `select` or `skip_existing`: the items and which of them are reused
  "protected_field", // any other field its node type does not declare free or ruled
  "tool_not_allowed", // a tool outside the run's allowlist
] as const;

/** One of {@link DELTA_ISSUE_CODES}. */
export type DeltaIssueCode = (typeof DELTA_ISSUE_CODES)[number];

/** What a delta is checked against. */
export interface DeltaContext {
  /** The run's plan, as stored (raw JSON). */
  plan: unknown;
  /** The ids the model may replace. */
  eligible: readonly string[];
  /** The tools a replaced node may name. */
  allowedTools: readonly string[];
  /** For validating the patched plan: a host whose `tools` are the allowed ones, and the node types. */
  host: ExecutionHost;
  nodeTypes: NodeTypeTable;
  /** Artifact keys the run had before it started (initial artifacts), for the patched plan's validation. */
  knownArtifacts?: Iterable<string>;
}

/** A delta checked: the patched plan and its changes, or every issue found. */
export type CheckedDelta =
  | {
      ok: true;
      delta: { nodes: Record<string, unknown>[] };
      /** The plan with the replaced nodes put in place of the old ones (same order). */
      plan: Record<string, unknown>;
      changes: RepairChange[];
      /** Validation's warnings on the patched plan. */
      warnings: PlanIssue[];
    }
  | { ok: false; issues: PlanIssue[] };

// Keys a model might use to ask for a removal; none is a node field, so none could mean anything else.
const REMOVAL_KEYS = ["remove", "removed", "delete", "deleted"];
const FOR_EACH_PROTECTED = ["source", "select", "skip_existing"] as const;
const FOR_EACH_DEFAULTS: Record<string, unknown> = { skip_existing: true };

/**
 * Checks a model's plan delta (`{ "nodes": [ … ] }`, replacing nodes by id) against the run: untrusted input,
 * so any value is an answer (issues), never an exception. Every forbidden change is a coded issue
 * ({@link DELTA_ISSUE_CODES}); a delta free of them is applied and the patched plan validated as a whole.
 */
export function checkRepairDelta(value: unknown, context: DeltaContext): CheckedDelta {
  const issues: PlanIssue[] = [];
  // A field rule's code is its node type's (`NodeType.modelWrites`), hence any string.
  const add = (
    code: DeltaIssueCode | (string & {}),
    message: string,
    nodeId?: string,
    path?: string,
  ): void => {
    issues.push({
      code,
      message,
      severity: "error",
      ...(nodeId !== undefined ? { nodeId } : {}),
      ...(path !== undefined ? { path } : {}),
    });
  };
  const planNodes = nodesOf(context.plan);
  if (!isObject(value) || !Array.isArray(value.nodes)) {
    add("invalid_delta", 'the delta must be one JSON object { "nodes": [ …replacement nodes… ] }');
    return { ok: false, issues };
  }
  for (const key of Object.keys(value)) {
    if (key === "nodes") continue;
    if (REMOVAL_KEYS.includes(key))
      add("removed_node", "a repair cannot remove nodes; replace a failed node instead", undefined, key);
    else add("invalid_delta", `unknown field "${key}": the delta has only "nodes"`, undefined, key);
  }
  if (value.nodes.length === 0) add("empty_delta", "the delta replaces no node; replace the failed ones");
  const byId = new Map<string, Record<string, unknown>>();
  for (const node of planNodes) if (typeof node.id === "string") byId.set(node.id, node);
  const eligible = new Set(context.eligible);
  const allowed = new Set(context.allowedTools);
  const seen = new Set<string>();
  const replacements = new Map<string, Record<string, unknown>>();
  (value.nodes as unknown[]).forEach((entry, i) => {
    const path = `nodes[${i}]`;
    const problem = entryProblem(entry, byId, eligible, seen, context.nodeTypes);
    if (problem) return add(problem[0], problem[1], problem[2], path);
    const node = entry as Record<string, unknown> & { id: string };
    const before = issues.length;
    checkNode(byId.get(node.id)!, node, allowed, context.nodeTypes, (code, message, field) =>
      add(code, message, node.id, `${path}.${field}`),
    );
    if (issues.length === before) replacements.set(node.id, node);
  });
  if (issues.length > 0) return { ok: false, issues };
  const plan = {
    ...(context.plan as Record<string, unknown>),
    nodes: planNodes.map((n) => replacements.get(n.id as string) ?? n),
  };
  const report = validatePlan(plan, {
    host: context.host,
    nodeTypes: context.nodeTypes,
    ...(context.knownArtifacts ? { knownArtifacts: context.knownArtifacts } : {}),
  });
  if (!report.ok) return { ok: false, issues: report.issues };
  const changes: RepairChange[] = [];
  for (const [id, node] of replacements)
    changes.push(...nodeChanges(id, byId.get(id)!, node, modelWritesOf(context.nodeTypes, node)));
  return {
    ok: true,
    delta: { nodes: [...replacements.values()] },
    plan,
    changes,
    warnings: report.issues,
  };
}

/** Why an entry of the delta is no replacement of an eligible node, if it is not: [code, message, node id]. */
function entryProblem(
  entry: unknown,
  byId: ReadonlyMap<string, Record<string, unknown>>,
  eligible: ReadonlySet<string>,
  seen: Set<string>,
  nodeTypes: NodeTypeTable,
): [DeltaIssueCode, string, string | undefined] | undefined {
  if (!isObject(entry) || typeof entry.id !== "string")
    return ["invalid_delta", "each replacement is a node object with a string `id`", undefined];
  const id = entry.id;
  if (seen.has(id)) return ["duplicate_node", `node "${id}" is replaced more than once`, id];
  seen.add(id);
  if (!byId.has(id))
    return ["added_node", `the plan has no node "${id}": a repair replaces nodes, never adds them`, id];
  if (REMOVAL_KEYS.some((k) => Object.hasOwn(entry, k)))
    return ["removed_node", `a repair cannot remove node "${id}"; replace it instead`, id];
  // (Eligibility is decided with the node types too: a type that declares no repairable fields is never eligible.)
  if (!eligible.has(id) || !isRepairable(nodeTypes, byId.get(id)!))
    return [
      "not_eligible",
      `node "${id}" did not fail (eligible: ${[...eligible].join(", ") || "none"}); what completed stays done`,
      id,
    ];
  return undefined;
}

/** The field-by-field checks of one replacement against the node it replaces, by its type's rules. */
function checkNode(
  original: Record<string, unknown>,
  next: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  nodeTypes: NodeTypeTable,
  add: (code: string, message: string, field: string) => void,
): void {
  const type = nodeTypeOf(nodeTypes, original)?.name ?? String(original.type);
  const writes = modelWritesOf(nodeTypes, original);
  if (nodeTypeOf(nodeTypes, next)?.name !== type)
    add(
      "changed_type",
      `a repair cannot change the node's type ("${type}" → "${String(next.type)}")`,
      "type",
    );
  const free = writes?.free ?? [];
  for (const field of new Set([...Object.keys(original), ...Object.keys(next)])) {
    if (field === "id" || field === "type") continue;
    const was = normalized(writes, field, original[field]);
    const now = normalized(writes, field, next[field]);
    if (sameValue(was, now) || free.includes(field)) continue;
    const rule = Object.hasOwn(writes?.rules ?? {}, field) ? writes!.rules![field] : undefined;
    if (rule) {
      checkFieldRule(field, rule, { was, now }, "a repair", add);
      continue;
    }
    switch (field) {
      case "store_as":
        add(
          "changed_store_as",
          "a repair cannot change `store_as`: later nodes read the result there",
          field,
        );
        break;
      case "depends_on":
        add("changed_depends_on", "a repair cannot change `depends_on`: the graph stays as it ran", field);
        break;
      case "for_each":
        checkForEach(was, now, add);
        break;
      default:
        add("protected_field", `a repair cannot change \`${field}\` of a ${type} node`, field);
    }
  }
  checkToolFields(writes, next, allowed, add);
}

function checkForEach(
  was: unknown,
  now: unknown,
  add: (code: DeltaIssueCode, message: string, field: string) => void,
): void {
  const a = isObject(was) ? was : undefined;
  const b = isObject(now) ? now : undefined;
  if (!a || !b) {
    add("changed_for_each", "a repair cannot add or remove `for_each`", "for_each");
    return;
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key] ?? FOR_EACH_DEFAULTS[key];
    const y = b[key] ?? FOR_EACH_DEFAULTS[key];
    if (sameValue(x, y)) continue;
    if ((FOR_EACH_PROTECTED as readonly string[]).includes(key))
      add(
        "changed_for_each",
        `a repair cannot change \`for_each.${key}\`: it decides the items and their reuse`,
        `for_each.${key}`,
      );
    else add("protected_field", `a repair cannot change \`for_each.${key}\``, `for_each.${key}`);
  }
}

/**
 * A replaced node's changes, field by field (one level into `retry` and the object fields its type lists as
 * `nested`, such as a tool node's `args`).
 */
export function nodeChanges(
  nodeId: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  writes?: ModelWrites,
): RepairChange[] {
  const changes: RepairChange[] = [];
  const nested = ["retry", ...(writes?.nested ?? [])];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[field];
    const a = after[field];
    if (sameValue(normalized(writes, field, b), normalized(writes, field, a))) continue;
    if (nested.includes(field) && isObject(b) && isObject(a)) {
      for (const key of new Set([...Object.keys(b), ...Object.keys(a)]))
        if (!sameValue(b[key], a[key])) changes.push(change(nodeId, `${field}.${key}`, b[key], a[key]));
    } else changes.push(change(nodeId, field, b, a));
  }
  return changes;
}

function change(nodeId: string, field: string, before: unknown, after: unknown): RepairChange {
  return {
    nodeId,
    field,
    ...(before !== undefined ? { before } : {}),
    ...(after !== undefined ? { after } : {}),
  };
}

/** Fields compared as the engine reads them: a left-out default equals the default given. */
function normalized(writes: ModelWrites | undefined, field: string, value: unknown): unknown {
  if (field === "depends_on" && value === undefined) return [];
  return normalizedField(writes, field, value);
}

function nodesOf(plan: unknown): Record<string, unknown>[] {
  const nodes = isObject(plan) ? plan.nodes : undefined;
  return Array.isArray(nodes) ? nodes.filter(isObject) : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
