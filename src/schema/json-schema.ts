import { z } from "zod";
import { toDialect2020 } from "./schema-dialect.js";

/** A JSON Schema object (draft 2020-12 or draft-07 shaped). */
export type JsonSchema = Record<string, unknown>;

/** What a tool's or contract's input may be declared as. */
export type SchemaInput = z.ZodType | JsonSchema;

export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * Converts a zod schema or a JSON Schema to plain JSON Schema. zod objects become
 * `additionalProperties: false` (zod's own default strips unknown keys; for a model we say so explicitly).
 */
export function toJsonSchema(schema: SchemaInput): JsonSchema {
  if (isZodSchema(schema)) {
    const out = z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any" }) as JsonSchema;
    delete out.$schema;
    return out;
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError(`Expected a zod schema or a JSON Schema object, got ${typeof schema}.`);
  }
  // One dialect from here on (proposal schemas, grammars and the gate embed a tool's schema in their own).
  return toDialect2020(schema);
}

/** The property names an object schema declares (empty for anything else). */
export function schemaProperties(schema: JsonSchema): string[] {
  const props = schema.properties;
  return props && typeof props === "object" ? Object.keys(props) : [];
}

/** The required property names of an object schema. */
export function schemaRequired(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}
