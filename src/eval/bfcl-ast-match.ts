import type { ToolCall } from "../records/hop.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { BfclAnswer } from "./bfcl.js";

/** The outcome of matching one proposed call against BFCL's ground truth. */
export interface AstMatch {
  ok: boolean;
  /** Why not, in BFCL's words where it has them. */
  error?: string;
}

/**
 * BFCL's AST check for one call (simple and multiple categories), after its `ast_checker`: the function name
 * must be exact; every required parameter present; no parameter the function does not declare or the answer
 * does not list; each given value equal to one of the allowed values — strings compared after BFCL's
 * normalisation (lower case, spaces and `,./-_*^` removed, `'` → `"`), an integer accepted for a float, lists
 * element by element in order, objects key by key — and a parameter left out only when `""` is among its
 * allowed values (optional; a string parameter may then also be given as `""`, as BFCL's string check allows).
 */
export function bfclAstMatch(
  call: ToolCall,
  answer: BfclAnswer,
  parameters: JsonSchema | undefined,
): AstMatch {
  const truth = answer.ground_truth[0];
  if (!truth) return { ok: false, error: "no ground truth" };
  const [name, allowedByParam] = Object.entries(truth)[0]!;
  if (call.name !== name) return { ok: false, error: `wrong function name: ${call.name}, expected ${name}` };
  const props = (parameters?.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(parameters?.required) ? (parameters.required as string[]) : [];
  for (const r of required) {
    if (!(r in call.arguments)) return { ok: false, error: `missing required parameter: ${r}` };
  }
  for (const [key, value] of Object.entries(call.arguments)) {
    if (!(key in props) && parameters?.properties)
      return { ok: false, error: `unexpected parameter: ${key}` };
    const allowed = allowedByParam[key];
    if (allowed === undefined) return { ok: false, error: `unexpected parameter: ${key}` };
    if (!matchesAny(value, allowed, props[key])) {
      return { ok: false, error: `invalid value for ${key}: ${JSON.stringify(value)}` };
    }
  }
  for (const [key, allowed] of Object.entries(allowedByParam)) {
    if (!(key in call.arguments) && !(Array.isArray(allowed) && allowed.includes(""))) {
      return { ok: false, error: `optional parameter not provided: ${key}` };
    }
  }
  return { ok: true };
}

function matchesAny(value: unknown, allowed: unknown, schema: JsonSchema | undefined): boolean {
  const options = Array.isArray(allowed) ? allowed : [allowed];
  // `""` marks a parameter optional; BFCL's string check also takes an empty string given for it (its
  // `string_checker` compares against every string option), while a value of another type must match a real one.
  return options.some(
    (option) => (option !== "" || schema?.type === "string") && matches(value, option, schema),
  );
}

function matches(value: unknown, expected: unknown, schema: JsonSchema | undefined): boolean {
  const type = schema?.type;
  if (typeof expected === "string" && typeof value === "string")
    return normalise(value) === normalise(expected);
  if (typeof expected === "number" && typeof value === "number") {
    // BFCL accepts an int where a float is expected, never a float where an int is.
    if (type === "integer" && !Number.isInteger(value)) return false;
    return value === expected;
  }
  if (Array.isArray(expected) && Array.isArray(value)) {
    const items = schema?.items as JsonSchema | undefined;
    return value.length === expected.length && value.every((v, i) => matches(v, expected[i], items));
  }
  if (isObject(expected) && isObject(value)) {
    // Nested objects in BFCL answers map each key to its allowed values.
    const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    for (const [k, v] of Object.entries(value)) {
      const allowedValues = expected[k];
      if (allowedValues === undefined || !matchesAny(v, allowedValues, props[k])) return false;
    }
    return Object.entries(expected).every(([k, a]) => k in value || (Array.isArray(a) && a.includes("")));
  }
  return value === expected;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** BFCL's `standardize_string`. */
function normalise(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}
