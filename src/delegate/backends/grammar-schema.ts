import type { JsonSchema } from "../../schema/json-schema.js";

/** What a grammar compiler does with a JSON Schema keyword it meets. */
export interface GrammarDialect {
  /** Name for messages, e.g. "node-llama-cpp". */
  name: string;
  /** Keywords the grammar cannot express and that would change which values are valid: reported. */
  unsupported: readonly string[];
  /** Convert to node-llama-cpp's GbnfJsonSchema subset (anyOf → oneOf, type lists split, …). */
  rewrite: boolean;
}

/** Keywords that only describe (never constrain) or that the gate checks after decoding anyway. */
const LOOSENED = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "propertyNames",
  "required",
  "dependentRequired",
  "contentEncoding",
  "contentMediaType",
]);

const STRUCTURAL_UNSUPPORTED = [
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
];

/** node-llama-cpp 3.21's `createGrammarForJsonSchema`. */
export const NODE_LLAMA_CPP_DIALECT: GrammarDialect = {
  name: "node-llama-cpp",
  unsupported: [...STRUCTURAL_UNSUPPORTED, "allOf"],
  rewrite: true,
};

/** llama-server's `json_schema` (llama.cpp `json-schema-to-grammar`). */
export const LLAMA_SERVER_DIALECT: GrammarDialect = {
  name: "llama-server",
  unsupported: STRUCTURAL_UNSUPPORTED,
  rewrite: false,
};

const IMMUTABLE = new Set(["string", "number", "integer", "boolean", "null"]);
const STRING_FORMATS = new Set(["date-time", "time", "date"]);

/** The result of {@link toGrammarSchema}. */
export interface GrammarSchemaResult {
  /** The schema to hand to the grammar compiler (a copy; rewritten into node-llama-cpp's subset for it). */
  schema: JsonSchema;
  /** What the grammar cannot express, as "`keyword` at /pointer" lines; empty when everything fits. */
  issues: string[];
}

/**
 * Checks (and, for node-llama-cpp, rewrites) a proposal schema for a grammar compiler. Keywords that only
 * narrow values (`minimum`, `pattern`, …) are dropped from the grammar — the accept gate validates the full
 * schema after decoding — while keywords that change the structure of valid values (`not`, `if`, `allOf` for
 * node-llama-cpp, non-local `$ref`, object-valued `enum`) are reported, so a plan using them fails validation
 * instead of mid-run.
 */
export function toGrammarSchema(schema: JsonSchema, dialect: GrammarDialect): GrammarSchemaResult {
  const issues: string[] = [];
  const out = convert(schema, "", dialect, issues) as JsonSchema;
  return { schema: out, issues };
}

function convert(node: unknown, at: string, dialect: GrammarDialect, issues: string[]): unknown {
  if (node === true || node === undefined) return {};
  if (node === false) {
    issues.push(`\`false\` schema at ${at || "/"}`);
    return {};
  }
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const s = node as Record<string, unknown>;
  const inlineAllOf = dialect.rewrite && Array.isArray(s.allOf) && s.allOf.length === 1;
  for (const k of dialect.unsupported) {
    if (k in s && !(k === "allOf" && inlineAllOf)) issues.push(`\`${k}\` at ${at || "/"}`);
  }
  if (typeof s.$ref === "string" && !/^#\/\$defs\/[^/]+$/.test(s.$ref)) {
    issues.push(`\`$ref\` "${s.$ref}" at ${at || "/"} (only #/$defs/<name> is supported)`);
  }
  for (const k of ["enum", "const"] as const) {
    const values = k === "enum" ? s.enum : [s.const];
    if (k in s && Array.isArray(values) && values.some((v) => typeof v === "object" && v !== null)) {
      issues.push(`\`${k}\` with object or array values at ${at || "/"}`);
    }
  }
  if (!dialect.rewrite) {
    const copy: Record<string, unknown> = { ...s };
    walkChildren(s, at, (child, path, set) => set(copy, convert(child, path, dialect, issues)));
    // llama.cpp's json-schema-to-grammar ignores maxProperties: an object that must be empty (the decline
    // branch's arguments) would otherwise admit any keys.
    if (s.maxProperties === 0 && s.additionalProperties === undefined && !s.properties) {
      copy.additionalProperties = false;
    }
    return copy;
  }
  return rewrite(s, at, dialect, issues);
}

function rewrite(s: Record<string, unknown>, at: string, dialect: GrammarDialect, issues: string[]): unknown {
  const sub = (child: unknown, path: string) => convert(child, path, dialect, issues);
  if (Array.isArray(s.allOf) && s.allOf.length === 1) {
    const { allOf, ...rest } = s;
    return sub({ ...rest, ...(allOf[0] as object) }, `${at}/allOf/0`);
  }
  const union = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(union)) {
    const { oneOf: _o, anyOf: _a, $defs, type: _t, ...rest } = s;
    const shared = "properties" in rest ? rest : pick(rest, ["description"]);
    const key = s.oneOf ? "oneOf" : "anyOf";
    const out: Record<string, unknown> = {
      oneOf: union.map((b, i) => sub({ ...shared, ...(b as object) }, `${at}/${key}/${i}`)),
    };
    if ($defs) out.$defs = mapValues($defs, (d, name) => sub(d, `${at}/$defs/${name}`));
    return out;
  }
  if (Array.isArray(s.type) && s.type.some((t) => !IMMUTABLE.has(t as string))) {
    const { type, ...rest } = s;
    return { oneOf: (type as string[]).map((t, i) => sub({ ...rest, type: t }, `${at}/type/${i}`)) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (LOOSENED.has(k) || dialect.unsupported.includes(k)) continue;
    if (k === "format" && !(s.type === "string" && STRING_FORMATS.has(v as string))) continue;
    if (k === "properties" || k === "$defs") out[k] = mapValues(v, (c, name) => sub(c, `${at}/${k}/${name}`));
    else if (k === "items" && Array.isArray(v)) out.prefixItems = v.map((c, i) => sub(c, `${at}/items/${i}`));
    else if (k === "items" || k === "additionalItems")
      out[k] = v === false ? undefined : sub(v, `${at}/${k}`);
    else if (k === "prefixItems" && Array.isArray(v)) out[k] = v.map((c, i) => sub(c, `${at}/${k}/${i}`));
    else if (k === "additionalProperties" && typeof v === "object") out[k] = sub(v, `${at}/${k}`);
    else out[k] = v;
  }
  if (out.items === undefined) delete out.items;
  delete out.additionalItems;
  if (out.type === undefined && out.properties) out.type = "object";
  if (
    out.type === "object" &&
    !out.properties &&
    out.additionalProperties === undefined &&
    !("maxProperties" in out)
  ) {
    out.additionalProperties = true; // JSON Schema's open object; node-llama-cpp's default would be `{}`
  }
  return out;
}

type Setter = (target: Record<string, unknown>, value: unknown) => void;

/** Visits every subschema with its pointer and a setter that stores a replacement at the same place in a copy. */
function walkChildren(
  s: Record<string, unknown>,
  at: string,
  visit: (child: unknown, path: string, set: Setter) => void,
) {
  for (const [k, v] of Object.entries(s)) {
    if (["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"].includes(k)) {
      if (typeof v !== "object" || v === null) continue;
      const map: Record<string, unknown> = { ...(v as Record<string, unknown>) };
      for (const [n, c] of Object.entries(v)) {
        visit(c, `${at}/${k}/${n}`, (target, value) => {
          map[n] = value;
          target[k] = map;
        });
      }
    } else if (["oneOf", "anyOf", "allOf", "prefixItems", "items"].includes(k) && Array.isArray(v)) {
      const list = [...v];
      v.forEach((c, i) =>
        visit(c, `${at}/${k}/${i}`, (target, value) => {
          list[i] = value;
          target[k] = list;
        }),
      );
    } else if (["items", "additionalProperties", "not", "if", "then", "else", "contains"].includes(k)) {
      if (typeof v === "object" && v !== null) visit(v, `${at}/${k}`, (target, value) => (target[k] = value));
    }
  }
}

function mapValues(v: unknown, fn: (child: unknown, name: string) => unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null) return {};
  return Object.fromEntries(Object.entries(v).map(([name, c]) => [name, fn(c, name)]));
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}
