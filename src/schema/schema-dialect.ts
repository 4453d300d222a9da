import { InvalidOptionError } from "../errors/invalid-option-error.js";

/** A JSON Schema object (the same shape as `JsonSchema`; declared here so the two files do not import each other). */
type JsonSchema = Record<string, unknown>;

// The meta-schema URIs that tool schemas declare: zod's `toJSONSchema`, the AI SDK and MCP servers write one of
// these (with or without the trailing `#`, over http or https).
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

const ONE = ["additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"];
const ONE_2020 = ["items", "unevaluatedItems", "unevaluatedProperties"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const BY_NAME = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * The schema in the one dialect deputy compiles (JSON Schema 2020-12), without its `$schema`: a schema that
 * declares draft-07 (or draft-06) is rewritten where the drafts differ (`items` as a list → `prefixItems`,
 * `additionalItems` → `items`, `dependencies` → `dependentRequired`/`dependentSchemas`); one that declares
 * 2020-12 only loses the declaration. A schema without `$schema` is returned as it is (the same object).
 * Throws {@link InvalidOptionError} for a `$schema` of another draft, naming the ones accepted.
 */
export function toDialect2020(schema: JsonSchema): JsonSchema {
  const declared = schema.$schema;
  if (declared === undefined) return schema;
  const { $schema: _declared, ...rest } = schema;
  if (typeof declared === "string" && DRAFT_2020.test(declared)) return rest;
  if (typeof declared === "string" && DRAFT_07.test(declared)) return fromDraft07(rest);
  throw new InvalidOptionError(
    "$schema",
    `"https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#" (or no $schema)`,
    declared,
  );
}

/** A 2020-12 copy of a draft-07 schema, subschemas included. */
function fromDraft07(value: unknown): JsonSchema {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value as JsonSchema;
  const schema = value as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, v] of Object.entries(schema)) {
    if (key === "items" || key === "additionalItems" || key === "dependencies") continue;
    if (ONE.includes(key) || ONE_2020.includes(key)) put(out, key, fromDraft07(v));
    else if (MANY.includes(key) && Array.isArray(v)) put(out, key, v.map(fromDraft07));
    else if (BY_NAME.includes(key) && isObject(v)) put(out, key, mapValues(v, fromDraft07));
    else put(out, key, v);
  }
  if (Array.isArray(schema.items)) {
    // A tuple: draft-07 lists it in `items` and says what follows in `additionalItems`.
    out.prefixItems = schema.items.map(fromDraft07);
    if (schema.additionalItems !== undefined) out.items = fromDraft07(schema.additionalItems);
  } else if (schema.items !== undefined) out.items = fromDraft07(schema.items);
  if (isObject(schema.dependencies)) {
    for (const [name, dep] of Object.entries(schema.dependencies)) {
      const into = Array.isArray(dep) ? "dependentRequired" : "dependentSchemas";
      const target = (out[into] ??= {}) as Record<string, unknown>;
      put(target, name, Array.isArray(dep) ? dep : fromDraft07(dep));
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mapValues(value: Record<string, unknown>, fn: (v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) put(out, k, fn(v));
  return out;
}

/** Sets an own property (a property named `__proto__` stays a property, never the prototype). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
