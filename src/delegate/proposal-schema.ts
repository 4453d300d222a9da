import type { JsonSchema } from "../schema/json-schema.js";
import type { ToolSpec } from "./protocol.js";
import { strictSchema } from "./strict-schema.js";

const MAX_CACHED = 256;
const cache = new Map<string, JsonSchema>();
const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 0;

/** A cache key from tool names and the identity of their parameter schemas (tools keep theirs for life). */
function toolSetKey(tools: ToolSpec[]): string {
  return tools
    .map((t) => {
      let id = schemaIds.get(t.parameters);
      if (id === undefined) schemaIds.set(t.parameters, (id = nextSchemaId++));
      return `${t.name}\u0000${id}`;
    })
    .join("\u0001");
}

/**
 * The one JSON Schema a proposal must fit: `oneOf` a branch per candidate tool
 * (`{ name: <const>, arguments: <the tool's parameters, closed to unknown keys> }`) and a decline branch
 * (`{ name: null, arguments?: {} }`). Backends constrain decoding with it; the gate checks the same shape.
 *
 * Each tool's `$defs` / `definitions` (at any depth) are hoisted to the top-level `$defs` as `<tool>__<def>`
 * (suffixed `_2`, `_3`, … on a collision) and every local `$ref` is rewritten to match, so the schema is
 * self-contained. A `$ref` into the tool's own root (`#`, `#/properties/…`) is supported by hoisting that root
 * as `<tool>__root` too. Results are cached per tool set (names and parameter schema objects; a schema object must
 * not be mutated after its first use, as tools' are not).
 *
 * @example
 * const schema = buildProposalSchema([{ name: "ignore_alert", description: "…", parameters: { type: "object" } }]);
 * // { type: "object", oneOf: [ {…name: {const: "ignore_alert"}…}, {…name: {type: "null"}…} ] }
 */
export function buildProposalSchema(tools: ToolSpec[]): JsonSchema {
  const key = toolSetKey(tools);
  const hit = cache.get(key);
  if (hit) return hit;
  const defs: Record<string, unknown> = {};
  const branches: JsonSchema[] = tools.map((tool) => ({
    type: "object",
    properties: { name: { const: tool.name }, arguments: embed(tool, defs) },
    required: ["name", "arguments"],
    additionalProperties: false,
  }));
  branches.push({
    type: "object",
    // additionalProperties as well as maxProperties: servers that compile the schema to a grammar (llama-server's
    // /v1 response_format) ignore maxProperties, and a model then fills the decline's arguments until max_tokens.
    properties: {
      name: { type: "null" },
      arguments: { type: "object", properties: {}, maxProperties: 0, additionalProperties: false },
    },
    required: ["name"],
    additionalProperties: false,
  });
  const schema: JsonSchema = { type: "object", oneOf: branches };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, schema);
  return schema;
}

/** Moves a tool's definitions into `defs` and returns its (closed) parameters with rewritten `$ref`s. */
function embed(tool: ToolSpec, defs: Record<string, unknown>): unknown {
  const params = strictSchema(tool.parameters);
  const renames = new Map<string, string>(); // JSON of a decoded pointer path → new def name
  const unique = (base: string) => {
    let name = base;
    for (let n = 2; name in defs || [...renames.values()].includes(name); n++) name = `${base}_${n}`;
    return name;
  };
  // Collect every $defs / definitions container, remembering its pointer path inside the tool schema.
  const found: { path: string[]; name: string; schema: unknown }[] = [];
  collectDefs(params, [], found);
  for (const d of found) renames.set(JSON.stringify([...d.path, d.name]), unique(`${tool.name}__${d.name}`));
  const rootRefs = hasRootRef(params);
  const rootName = rootRefs ? unique(`${tool.name}__root`) : undefined;
  if (rootName) renames.set("[]", rootName);

  const rewrite = (schema: unknown): unknown =>
    mapSchema(schema, (node) => {
      const out: Record<string, unknown> = { ...node };
      delete out.$defs;
      delete out.definitions;
      if (typeof out.$ref === "string") out.$ref = rewriteRef(out.$ref, renames);
      return out;
    });
  for (const d of found) defs[renames.get(JSON.stringify([...d.path, d.name]))!] = rewrite(d.schema);
  const body = rewrite(params);
  if (rootName) {
    defs[rootName] = body;
    return { $ref: `#/$defs/${encodeSegment(rootName)}` };
  }
  return body;
}

const SUB_ONE = ["items", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames"];
const SUB_MORE = ["unevaluatedItems", "unevaluatedProperties", "additionalProperties"];
const SUB_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUB_MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/**
 * Applies `fn` to every (sub)schema bottom-up, knowing keywords from data: a property named `definitions` or
 * a `const` holding `{ "$ref": … }` is left alone.
 */
function mapSchema(schema: unknown, fn: (node: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const node: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  for (const k of [...SUB_ONE, ...SUB_MORE]) {
    if (!(k in node)) continue;
    const v = node[k];
    node[k] = Array.isArray(v) ? v.map((x) => mapSchema(x, fn)) : mapSchema(v, fn);
  }
  for (const k of SUB_LIST)
    if (Array.isArray(node[k])) node[k] = (node[k] as unknown[]).map((x) => mapSchema(x, fn));
  for (const k of SUB_MAP) {
    const m = node[k];
    if (typeof m === "object" && m !== null && !Array.isArray(m)) {
      node[k] = Object.fromEntries(Object.entries(m).map(([name, sub]) => [name, mapSchema(sub, fn)]));
    }
  }
  return fn(node);
}

/** Every definition (at any depth), with the pointer path of its container. */
function collectDefs(
  schema: unknown,
  path: string[],
  out: { path: string[]; name: string; schema: unknown }[],
) {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  const node = schema as Record<string, unknown>;
  for (const [k, v] of Object.entries(node)) {
    if (SUB_ONE.includes(k) || SUB_MORE.includes(k)) {
      if (Array.isArray(v)) v.forEach((x, i) => collectDefs(x, [...path, k, String(i)], out));
      else collectDefs(v, [...path, k], out);
    } else if (SUB_LIST.includes(k) && Array.isArray(v)) {
      v.forEach((x, i) => collectDefs(x, [...path, k, String(i)], out));
    } else if (SUB_MAP.includes(k) && typeof v === "object" && v !== null && !Array.isArray(v)) {
      for (const [name, sub] of Object.entries(v)) {
        if (k === "$defs" || k === "definitions") out.push({ path: [...path, k], name, schema: sub });
        collectDefs(sub, [...path, k, name], out);
      }
    }
  }
}

/** True when some `$ref` points into the tool's own schema outside its top-level definitions. */
function hasRootRef(schema: unknown): boolean {
  let found = false;
  mapSchema(schema, (node) => {
    if (typeof node.$ref === "string") {
      const path = decodePointer(node.$ref);
      if (path && !(path.length >= 2 && (path[0] === "$defs" || path[0] === "definitions"))) found = true;
    }
    return node;
  });
  return found;
}

/** Rewrites a local `$ref` to the hoisted location: the longest renamed prefix wins. Non-local refs are kept. */
function rewriteRef(ref: string, renames: Map<string, string>): string {
  const path = decodePointer(ref);
  if (!path) return ref;
  for (let cut = path.length; cut >= 0; cut--) {
    const name = renames.get(JSON.stringify(path.slice(0, cut)));
    if (name !== undefined) return `#/${["$defs", name, ...path.slice(cut)].map(encodeSegment).join("/")}`;
  }
  return ref;
}

/** `#/a/b~1c` → `["a", "b/c"]`; `#` → `[]`; anything not a local JSON pointer → undefined. */
function decodePointer(ref: string): string[] | undefined {
  if (ref === "#") return [];
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
}

function encodeSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
