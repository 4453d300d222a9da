import type { FieldRule, ModelWrites, NodeType } from "../plan/node-type.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
import { canonicalJson } from "../runtime/canonical-json.js";

// One policy for what a model writes into a plan — a repair's replacement nodes and a whole authored plan —
// read from the node types' own declarations (`NodeType.modelWrites`), so that this folder names none of their
// fields.

/**
 * The confidence floor of a model-written plan: a gate's bar (a field its node type rules `rises`, such as the
 * delegate's confidence threshold) is at least this, and one the model left out is set to it. A host may set another (`confidenceFloor`,
 * `deputy plan --confidence-floor`).
 */
export const DEFAULT_AUTHORED_CONFIDENCE_FLOOR = 0.8;

/** Reports one breach: its code, the message, and the field it is on. */
export type ReportBreach = (code: string, message: string, field: string) => void;

/** Who wrote the change, for messages: `a repair`, `a model-written plan`. */
export type Writer = "a repair" | "a model-written plan";

/** The node type of a raw node (its `type`, or the table's implicit type when it names none). */
export function nodeTypeOf(nodeTypes: NodeTypeTable, node: Record<string, unknown>): NodeType | undefined {
  const name = node.type === undefined ? nodeTypes.implicit : node.type;
  return typeof name === "string" ? nodeTypes.get(name) : undefined;
}

/** What a model may write in nodes of the raw node's type (none: the type declares nothing). */
export function modelWritesOf(
  nodeTypes: NodeTypeTable,
  node: Record<string, unknown>,
): ModelWrites | undefined {
  return nodeTypeOf(nodeTypes, node)?.modelWrites;
}

/** Whether a repair may replace a node of the raw node's type. */
export function isRepairable(nodeTypes: NodeTypeTable, node: Record<string, unknown>): boolean {
  const writes = modelWritesOf(nodeTypes, node);
  return writes !== undefined && writes.repairable !== false;
}

/** A field as the engine reads it: a left-out field with a `never` rule is its default. */
export function normalizedField(writes: ModelWrites | undefined, field: string, value: unknown): unknown {
  const rule = writes?.rules?.[field];
  return value === undefined && rule?.rule === "never" ? rule.default : value;
}

/**
 * One field's rule. In a repair, `was` is the field as it ran (checked only when it changed); in a
 * model-written plan there is no `was` and `floor` is the host's confidence floor.
 */
export function checkFieldRule(
  field: string,
  rule: FieldRule,
  change: { was?: unknown; now: unknown; floor?: number | undefined },
  writer: Writer,
  report: ReportBreach,
): void {
  const { was, now, floor } = change;
  if (rule.rule === "never") {
    if (now !== undefined && !sameValue(now, rule.default))
      report(rule.code, `${writer} cannot set \`${field}\``, field);
    return;
  }
  if (floor !== undefined) {
    if (typeof now === "number" && now < floor)
      report(
        rule.floorCode,
        `${writer} cannot put \`${field}\` below the host's floor (${now} < ${floor})`,
        field,
      );
    return;
  }
  // Raising the bar is a repair (a stricter gate); lowering or removing it is not.
  if (typeof now !== "number" || (typeof was === "number" && now < was))
    report(rule.code, `${writer} cannot lower \`${field}\` (${String(was)} → ${String(now)})`, field);
}

/** The tool names a node's tool fields hold (a name or a list of names), each with its field. */
export function toolNamesOf(
  writes: ModelWrites | undefined,
  node: Record<string, unknown>,
): { field: string; name: unknown }[] {
  const out: { field: string; name: unknown }[] = [];
  for (const field of writes?.toolFields ?? []) {
    const value = node[field];
    if (value === undefined) continue;
    for (const name of Array.isArray(value) ? value : [value]) out.push({ field, name });
  }
  return out;
}

/** Every name of a node's tool fields outside the allowlist is `tool_not_allowed`. */
export function checkToolFields(
  writes: ModelWrites | undefined,
  node: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  report: ReportBreach,
): void {
  for (const { field, name } of toolNamesOf(writes, node))
    if (!(typeof name === "string" && allowed.has(name)))
      report("tool_not_allowed", `tool ${JSON.stringify(name)} is not in the run's allowlist`, field);
}

/** Two JSON values are the same (canonical JSON); `undefined` equals only itself. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
