import type { ToolCall } from "../records/hop.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";

/** A function document as the Berkeley Function-Calling Leaderboard (BFCL) writes it. */
export interface BfclFunction {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** One BFCL sample: a question and its candidate functions. */
export interface BfclSample {
  id: string;
  question: { role: string; content: string }[][];
  function: BfclFunction[];
}

/** BFCL's ground truth: per call, function name → parameter → allowed values (`""` = may be omitted). */
export interface BfclAnswer {
  id: string;
  ground_truth: Record<string, Record<string, unknown[]>>[];
}

/** BFCL's own type names → JSON Schema, as BFCL maps them for function-calling APIs (GORILLA_TO_OPENAPI). */
const TYPE_MAP: Record<string, string> = {
  dict: "object",
  float: "number",
  tuple: "array",
  any: "string",
  integer: "integer",
  string: "string",
  array: "array",
  boolean: "boolean",
  number: "number",
  object: "object",
  null: "null",
};

/**
 * Converts a BFCL parameter schema to JSON Schema: types mapped (`dict`→object, `float`→number, `tuple`→array,
 * `any`→string, the rest as they are), `properties` and `items` converted recursively, BFCL's non-standard
 * `optional` flag dropped (a parameter is optional exactly when it is not `required`, and BFCL's `required` lists
 * already say so), and a `default` kept only when it fits the mapped type (BFCL writes `default: null` on typed
 * parameters, which would mislead a model). Other keywords (`description`, `enum`, `format`, `maximum`, …) pass
 * through.
 */
export function bfclSchemaToJsonSchema(schema: Record<string, unknown>): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "optional" || key === "default") continue;
    if (key === "type") {
      out.type = mapType(value);
    } else if (key === "properties" && typeof value === "object" && value !== null) {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, unknown>>).map(([k, v]) => [
          k,
          bfclSchemaToJsonSchema(v),
        ]),
      );
    } else if (key === "items" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      out.items = bfclSchemaToJsonSchema(value as Record<string, unknown>);
    } else {
      out[key] = value;
    }
  }
  if ("default" in schema && fitsType(schema.default, out.type)) out.default = schema.default;
  if (Array.isArray(out.required) && out.properties) {
    // BFCL occasionally lists a required name that has no property; keep only declared ones so strict schemas hold.
    const declared = out.properties as Record<string, unknown>;
    out.required = (out.required as string[]).filter((name) => name in declared);
  }
  return out;
}

/** A BFCL function document as a {@link ToolSpec}. */
export function bfclToToolSpec(fn: BfclFunction): ToolSpec {
  const parameters = bfclSchemaToJsonSchema(fn.parameters);
  if (parameters.type === undefined) parameters.type = "object";
  return { name: fn.name, description: fn.description ?? "", parameters };
}

/**
 * The first ground-truth call of a BFCL answer as `{ name, arguments }`: each parameter takes its first allowed
 * value, and a parameter whose first allowed value is `""` (BFCL's "may be omitted") is left out. BFCL encodes an
 * object-typed value (or each object of an array) the same way, key → allowed values; given the tool's
 * {@link ToolSpec}, those are decoded recursively where its schema declares `properties`.
 */
export function bfclGroundTruthCall(answer: BfclAnswer, tools: ToolSpec[] = []): ToolCall {
  const first = answer.ground_truth[0];
  if (!first)
    throw new InvalidOptionError("answer", `a BFCL answer with a ground truth (${answer.id})`, first);
  const [name, params] = Object.entries(first)[0]!;
  const schema = tools.find((t) => t.name === name)?.parameters;
  return { name, arguments: decodeAllowed(params, schema) };
}

function decodeAllowed(
  params: Record<string, unknown[]>,
  schema: JsonSchema | undefined,
): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const args: Record<string, unknown> = {};
  for (const [key, allowed] of Object.entries(params)) {
    const value = Array.isArray(allowed) ? allowed[0] : allowed;
    if (value === "" || value === undefined) continue;
    args[key] = decodeValue(value, props[key]);
  }
  return args;
}

function decodeValue(value: unknown, schema: JsonSchema | undefined): unknown {
  if (!schema) return value;
  if (schema.properties && typeof value === "object" && value !== null && !Array.isArray(value)) {
    return decodeAllowed(value as Record<string, unknown[]>, schema);
  }
  const items = schema.items as JsonSchema | undefined;
  if (items && Array.isArray(value)) return value.map((v) => decodeValue(v, items));
  return value;
}

/** The user's question of a single-turn BFCL sample (the last user message of the first turn). */
export function bfclQuestion(sample: BfclSample): string {
  const turn = sample.question[0] ?? [];
  return [...turn].reverse().find((m) => m.role === "user")?.content ?? "";
}

function mapType(type: unknown): unknown {
  if (typeof type === "string") return TYPE_MAP[type] ?? type;
  if (Array.isArray(type)) return type.map(mapType);
  return type;
}

function fitsType(value: unknown, type: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case "string":
        return typeof value === "string";
      case "number":
        return typeof value === "number";
      case "integer":
        return Number.isInteger(value);
      case "boolean":
        return typeof value === "boolean";
      case "array":
        return Array.isArray(value);
      case "object":
        return typeof value === "object" && value !== null && !Array.isArray(value);
      case "null":
        return value === null;
      default:
        return false;
    }
  });
}
