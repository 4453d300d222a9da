import type { JsonSchema } from "../schema/json-schema.js";

const cache = new WeakMap<object, JsonSchema>();

/** Keywords whose value is one subschema. */
const SINGLE = [
  "items",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
];
/** Keywords whose value is a list of subschemas. */
const LIST = ["anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * The same schema with `additionalProperties: false` on every object schema that lists `properties` and says
 * nothing about extra keys, so that a key the tool does not declare is an error (a model must never invent
 * keys). Schemas combined with `allOf` are left open, since closing each part would reject the others' keys.
 * Returns a copy (cached per input object); the input is never mutated.
 */
export function strictSchema(schema: JsonSchema): JsonSchema {
  let out = cache.get(schema);
  if (!out) {
    out = close(schema) as JsonSchema;
    cache.set(schema, out);
  }
  return out;
}

function close(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const s = schema as JsonSchema;
  const out: JsonSchema = { ...s };
  for (const k of SINGLE)
    if (k in s) out[k] = Array.isArray(s[k]) ? (s[k] as unknown[]).map(close) : close(s[k]);
  for (const k of LIST) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(close);
  for (const k of MAP) {
    const m = s[k];
    if (typeof m === "object" && m !== null && !Array.isArray(m)) {
      out[k] = Object.fromEntries(Object.entries(m).map(([name, sub]) => [name, close(sub)]));
    }
  }
  if (typeof s.additionalProperties === "object" && s.additionalProperties !== null) {
    out.additionalProperties = close(s.additionalProperties);
  }
  const open =
    "additionalProperties" in s || "unevaluatedProperties" in s || "patternProperties" in s || "allOf" in s;
  if (!open && typeof s.properties === "object" && s.properties !== null) out.additionalProperties = false;
  return out;
}
