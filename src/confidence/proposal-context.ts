import type { DelegateTask } from "../records/delegate-task.js";

/** What {@link proposalContext} reads of a proposal request (a delegate's `ProposeRequest` has it). */
export interface ContextRequest extends Pick<DelegateTask, "instruction" | "facts"> {
  /** The candidate tools (only counted). */
  tools: readonly unknown[];
}

/**
 * What a calibration may know about a proposal beside its scores, all of it known when the proposal is made:
 * how many candidate tools there were, and how much of the call's argument values the input spells out (a value
 * copied from the question, against one the model made up).
 */
export interface ProposalContext {
  /** Candidate tools offered. */
  tools: number;
  /** {@link verbatimShare} of the call's arguments in the instruction and facts. */
  verbatimShare: number;
}

/**
 * The share of the arguments' string and number values (at any depth) whose text occurs in `input`, compared
 * lower-cased, numbers in their JSON form; 1 when there are none (a decline, a call without arguments).
 */
export function verbatimShare(input: string, args: Record<string, unknown> | undefined): number {
  const text = input.toLowerCase();
  const leaves = argumentLeaves(args);
  return leaves.length === 0 ? 1 : leaves.filter((l) => text.includes(l)).length / leaves.length;
}

/**
 * Whether a call is grounded in its input: it has at least one string or number argument value and every one of
 * them occurs in `input` or, given the tool's argument schema, is one the schema lists ({@link listedValues}: an
 * `enum`'s values, a property's `default`). Runs of white space count as one space and a value's ends are trimmed,
 * so a copied phrase with a stray space is still copied. A model that makes up a call to a tool the task is not
 * about invents its values; a call that copies them from the question, or picks them from the tool's own list (a
 * unit, a mode, the default it documents), is about the question (measured on BFCL in docs/quality.md,
 * "Questions worded unlike BFCL's").
 */
export function groundedCall(
  input: string,
  args: Record<string, unknown> | undefined,
  schema?: unknown,
): boolean {
  const text = squeeze(input.toLowerCase());
  const leaves = argumentLeaves(args).map(squeeze);
  // The schema is read only when a value is not in the text (most grounded calls copy every value).
  let listed: Set<string> | undefined;
  return (
    leaves.length > 0 &&
    leaves.every(
      (l) => text.includes(l) || (schema !== undefined && (listed ??= listedValues(schema)).has(l)),
    )
  );
}

/** Runs of white space as one space, the ends trimmed. */
const squeeze = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * Every value a JSON Schema lists anywhere — each `enum`'s values and each `default` that is a string or a
 * number — as {@link argumentLeaves} writes a value, white space squeezed as {@link groundedCall} compares it.
 */
export function listedValues(schema: unknown): Set<string> {
  const values = new Set<string>();
  const seen = new Set<object>();
  const add = (v: unknown): void => {
    const text = leafText(v);
    if (text !== undefined) values.add(squeeze(text));
  };
  const walk = (node: unknown, depth: number): void => {
    // A schema is the tool's, from a plan or an MCP server: bounded in depth and safe against cycles.
    if (node === null || typeof node !== "object" || depth > 32 || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.enum)) record.enum.forEach(add);
    if ("default" in record) add(record.default);
    for (const [key, child] of Object.entries(record)) if (key !== "enum") walk(child, depth + 1);
  };
  walk(schema, 0);
  return values;
}

/** The arguments' string and number values at any depth, lower-cased, numbers in their JSON form. */
export function argumentLeaves(args: Record<string, unknown> | undefined): string[] {
  const leaves: string[] = [];
  const walk = (v: unknown): void => {
    const text = leafText(v);
    if (text !== undefined) leaves.push(text);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(args ?? {});
  return leaves;
}

/** A string lower-cased, a number in its JSON form; nothing else is a value a task can spell out. */
function leafText(v: unknown): string | undefined {
  if (typeof v === "string") return v.toLowerCase();
  if (typeof v === "number") return JSON.stringify(v);
  return undefined;
}

/** The {@link ProposalContext} of a proposal's arguments for a request. */
export function proposalContext(
  request: ContextRequest,
  args: Record<string, unknown> | undefined,
): ProposalContext {
  return { tools: request.tools.length, verbatimShare: verbatimShare(taskText(request), args) };
}

/** The task a call's values may come from: the instruction, then the facts as JSON when there are any. */
export function taskText(request: Pick<DelegateTask, "instruction" | "facts">): string {
  let facts = "";
  try {
    facts =
      request.facts && Object.keys(request.facts).length > 0 ? (JSON.stringify(request.facts) ?? "") : "";
  } catch {
    // Facts are plain JSON in a plan; anything else (a cycle from library code) is left out, not fatal.
  }
  return facts ? `${request.instruction}\n${facts}` : request.instruction;
}
