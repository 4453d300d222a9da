import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
import { validatePlan } from "../plan/validate-plan.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import type { RepairChange } from "../store/run-state.js";

/**
 * What a repair may change, by node type — policy as data. Everything else on a replaced node is protected:
 * the fields below with a code of their own, any other with `protected_field`.
 */
export const REPAIRABLE_FIELDS = {
  tool: ["tool", "args", "when", "timeout", "retry", "description"],
  delegate: ["instruction", "facts", "tools"],
} as const satisfies Record<string, readonly string[]>;

/** The node types a repair may replace: those whose nodes are eligible when they end `error` or `blocked`. */
export const REPAIRABLE_TYPES: readonly string[] = Object.keys(REPAIRABLE_FIELDS);

/**
 * The coded issues of a delta, in the order they are checked. A delta with any of them is refused (after the
 * one correction round); the patched plan's own issues are `validatePlan`'s codes.
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
  "lowered_min_confidence", // the accept gate's bar may rise, never fall
  "allow_side_effects", // the side-effect double key's plan half may not be turned on by a model
  "protected_field", // any other field outside REPAIRABLE_FIELDS
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
  const add = (code: DeltaIssueCode, message: string, nodeId?: string, path?: string): void => {
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
    const problem = entryProblem(entry, byId, eligible, seen);
    if (problem) return add(problem[0], problem[1], problem[2], path);
    const node = entry as Record<string, unknown> & { id: string };
    const before = issues.length;
    checkNode(byId.get(node.id)!, node, allowed, (code, message, field) =>
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
  for (const [id, node] of replacements) changes.push(...nodeChanges(id, byId.get(id)!, node));
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
  if (!eligible.has(id))
    return [
      "not_eligible",
      `node "${id}" did not fail (eligible: ${[...eligible].join(", ") || "none"}); what completed stays done`,
      id,
    ];
  return undefined;
}

/** The field-by-field checks of one replacement against the node it replaces. */
function checkNode(
  original: Record<string, unknown>,
  next: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  add: (code: DeltaIssueCode, message: string, field: string) => void,
): void {
  const type = typeOf(original);
  if (typeOf(next) !== type)
    add(
      "changed_type",
      `a repair cannot change the node's type ("${type}" → "${String(next.type)}")`,
      "type",
    );
  const repairable: readonly string[] = REPAIRABLE_FIELDS[type as keyof typeof REPAIRABLE_FIELDS] ?? [];
  for (const field of new Set([...Object.keys(original), ...Object.keys(next)])) {
    if (field === "id" || field === "type") continue;
    const was = normalized(field, original[field]);
    const now = normalized(field, next[field]);
    if (same(was, now) || repairable.includes(field)) continue;
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
      case "min_confidence":
        // Raising the bar is a repair (a stricter gate); lowering or removing it is not.
        if (typeof now !== "number" || (typeof was === "number" && now < was))
          add(
            "lowered_min_confidence",
            `a repair cannot lower \`min_confidence\` (${String(was)} → ${String(now)})`,
            field,
          );
        break;
      case "allow_side_effects":
        if (now === true) add("allow_side_effects", "a repair cannot set `allow_side_effects`", field);
        break;
      default:
        add("protected_field", `a repair cannot change \`${field}\` of a ${type} node`, field);
    }
  }
  if (
    type === "tool" &&
    next.tool !== undefined &&
    !(typeof next.tool === "string" && allowed.has(next.tool))
  )
    add("tool_not_allowed", `tool ${JSON.stringify(next.tool)} is not in the run's allowlist`, "tool");
  if (type === "delegate" && Array.isArray(next.tools))
    for (const t of next.tools)
      if (!(typeof t === "string" && allowed.has(t)))
        add("tool_not_allowed", `tool ${JSON.stringify(t)} is not in the run's allowlist`, "tools");
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
    if (same(x, y)) continue;
    if ((FOR_EACH_PROTECTED as readonly string[]).includes(key))
      add(
        "changed_for_each",
        `a repair cannot change \`for_each.${key}\`: it decides the items and their reuse`,
        `for_each.${key}`,
      );
    else add("protected_field", `a repair cannot change \`for_each.${key}\``, `for_each.${key}`);
  }
}

/** A replaced node's changes, field by field (one level into `args`, `facts` and `retry`). */
export function nodeChanges(
  nodeId: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): RepairChange[] {
  const changes: RepairChange[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[field];
    const a = after[field];
    if (same(normalized(field, b), normalized(field, a))) continue;
    if (["args", "facts", "retry"].includes(field) && isObject(b) && isObject(a)) {
      for (const key of new Set([...Object.keys(b), ...Object.keys(a)]))
        if (!same(b[key], a[key])) changes.push(change(nodeId, `${field}.${key}`, b[key], a[key]));
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
function normalized(field: string, value: unknown): unknown {
  if (field === "depends_on" && value === undefined) return [];
  if (field === "allow_side_effects" && value === undefined) return false;
  return value;
}

function typeOf(node: Record<string, unknown>): string {
  return node.type === undefined ? "tool" : String(node.type);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

function nodesOf(plan: unknown): Record<string, unknown>[] {
  const nodes = isObject(plan) ? plan.nodes : undefined;
  return Array.isArray(nodes) ? nodes.filter(isObject) : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
