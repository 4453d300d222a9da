import type { JsonSchema } from "../schema/json-schema.js";
import { validateValue } from "../schema/validator.js";

/** The outcome of checking a calling model's arguments against a contract. */
export type ArgumentCheck =
  | { ok: true; value: Record<string, unknown>; dropped: string[] }
  | { ok: false; issues: string[]; dropped: string[] };

/**
 * Drops the keys a calling model invented (anything outside the contract, at every level where the schema lists
 * `properties` and does not allow extra keys), then validates what is left against the whole schema. A
 * hallucinated key therefore gives a working call; a wrong or missing value gives issues the model can act on.
 */
export function checkArguments(schema: JsonSchema, args: unknown): ArgumentCheck {
  const dropped: string[] = [];
  const value = args === undefined || args === null ? {} : dropUnknownKeys(schema, args, "", dropped);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, issues: ["(root): must be an object of named arguments"], dropped };
  }
  const result = validateValue(schema, value);
  return result.ok
    ? { ok: true, value: value as Record<string, unknown>, dropped }
    : { ok: false, issues: result.issues, dropped };
}

function dropUnknownKeys(schema: unknown, value: unknown, path: string, dropped: string[]): unknown {
  if (typeof schema !== "object" || schema === null) return value;
  const s = schema as JsonSchema;
  if (Array.isArray(value)) {
    const items = s.items;
    return items && typeof items === "object"
      ? value.map((v, i) => dropUnknownKeys(items, v, `${path}/${i}`, dropped))
      : value;
  }
  if (typeof value !== "object" || value === null) return value;
  const props = s.properties as Record<string, unknown> | undefined;
  if (!props || typeof props !== "object") return value;
  const open = s.additionalProperties !== undefined && s.additionalProperties !== false;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key in props) out[key] = dropUnknownKeys(props[key], v, `${path}/${key}`, dropped);
    else if (open || s.patternProperties !== undefined) out[key] = v;
    else dropped.push(`${path}/${key}`);
  }
  return out;
}
