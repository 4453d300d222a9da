import type { JsonSchema } from "../schema/json-schema.js";

/**
 * A deterministic value that fits `schema`, made up from `text` (the mock model's arguments and structured
 * answers). Strings take the text; an `enum` takes the first value the text mentions, else its first value;
 * numbers take their minimum; arrays one item; objects every property.
 */
export function synthesizeValue(schema: JsonSchema | undefined, text: string, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 8) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const lower = text.toLowerCase();
    return (
      schema.enum.find(
        (v) => typeof v === "string" && new RegExp(`\\b${escape(v.toLowerCase())}\\b`).test(lower),
      ) ?? schema.enum[0]
    );
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return synthesizeValue(branches[0], text, depth + 1);
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((t) => t !== "null")
    : (schema.type as string | undefined);
  switch (type ?? (schema.properties ? "object" : "string")) {
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const [key, sub] of Object.entries(props)) out[key] = synthesizeValue(sub, text, depth + 1);
      return out;
    }
    case "array": {
      const count = Math.max(1, Number(schema.minItems ?? 1));
      const limited = schema.maxItems !== undefined ? Math.min(count, Number(schema.maxItems)) : count;
      return Array.from({ length: limited }, () =>
        synthesizeValue(schema.items as JsonSchema, text, depth + 1),
      );
    }
    case "integer":
    case "number": {
      let n =
        typeof schema.minimum === "number"
          ? schema.minimum
          : typeof schema.exclusiveMinimum === "number"
            ? schema.exclusiveMinimum + 1
            : 1;
      if (typeof schema.maximum === "number") n = Math.min(n, schema.maximum);
      return type === "integer" ? Math.ceil(n) : n;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return stringFor(schema, text);
  }
}

function stringFor(schema: JsonSchema, text: string): string {
  switch (schema.format) {
    case "email":
      return "user@example.com";
    case "date":
      return "2026-01-01";
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "uri":
    case "url":
      return "https://example.com/";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
  }
  let s = text.trim() || "text";
  if (typeof schema.maxLength === "number") s = s.slice(0, schema.maxLength);
  if (typeof schema.minLength === "number") s = s.padEnd(schema.minLength, ".");
  return s;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
