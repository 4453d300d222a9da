import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { JsonSchema } from "./json-schema.js";
import { toDialect2020 } from "./schema-dialect.js";

/** Result of validating a value: `ok`, or the list of human-readable issues. */
export type ValidationResult = { ok: true } | { ok: false; issues: string[] };

/** A compiled schema: call it with a value; `errors` says why it did not fit. */
export type { ValidateFunction };

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
// Draft-07 style `definitions` are common in hand-written tool schemas; Ajv2020 resolves $ref into them anyway.

const cache = new WeakMap<object, ValidateFunction>();
const VALID: ValidationResult = Object.freeze({ ok: true });

/**
 * Compiles (once per schema object) and returns the validator. Throws on an invalid schema. A schema may declare
 * `$schema` draft-07 or 2020-12 (what zod's `toJSONSchema`, the AI SDK and MCP servers write): it is compiled
 * as 2020-12 after {@link toDialect2020}.
 */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(toDialect2020(schema));
    cache.set(schema, fn);
  }
  return fn;
}

/** Validates `value` against `schema`, returning every issue with its JSON path. */
export function validateValue(schema: JsonSchema, value: unknown): ValidationResult {
  const fn = compileSchema(schema);
  if (fn(value)) return VALID;
  return { ok: false, issues: formatIssues(fn.errors ?? []) };
}

export function formatIssues(errors: ErrorObject[]): string[] {
  return errors.map((e) => {
    const where = e.instancePath || "(root)";
    if (e.keyword === "additionalProperties") {
      return `${where}: unknown key "${String((e.params as { additionalProperty: string }).additionalProperty)}"`;
    }
    if (e.keyword === "required") {
      return `${where}: missing required key "${String((e.params as { missingProperty: string }).missingProperty)}"`;
    }
    return `${where}: ${e.message ?? e.keyword}`;
  });
}
