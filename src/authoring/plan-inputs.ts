import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { compileSchema, formatIssues } from "../schema/validator.js";

/**
 * The inputs given on the command line as one object: `--input key=value` (repeatable; the value parsed as JSON
 * when it parses, else taken as a string) or `--inputs JSON` (an object), not both. A key given twice is an
 * error, not "the last one wins".
 */
export function inputsFromFlags(
  pairs: readonly string[] | undefined,
  json: string | undefined,
): Record<string, unknown> {
  if (pairs?.length && json !== undefined)
    throw new InvalidOptionError("--inputs", "given alone (not with --input)", json);
  if (json !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(json) as unknown;
    } catch {
      throw new InvalidOptionError("--inputs", "a JSON object", json);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new InvalidOptionError("--inputs", "a JSON object", value);
    return value as Record<string, unknown>;
  }
  const inputs: Record<string, unknown> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf("=");
    const key = eq < 0 ? "" : pair.slice(0, eq);
    if (key === "") throw new InvalidOptionError("--input", "key=value", pair);
    if (Object.hasOwn(inputs, key))
      throw new InvalidOptionError("--input", `each key once (${key} is given twice)`, pair);
    Object.defineProperty(inputs, key, {
      value: parseValue(pair.slice(eq + 1)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return inputs;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Every problem with the values given for a plan's declared `inputs`, one line each: a required input missing,
 * an input the plan does not declare, a value that does not fit its schema. Empty when they fit. A plan that
 * declares no inputs takes none.
 */
export function checkPlanInputs(declared: JsonSchema | undefined, values: Record<string, unknown>): string[] {
  const given = Object.keys(values);
  if (declared === undefined)
    return given.map((key) => `unknown input "${key}": the plan declares no inputs`);
  const properties = isObject(declared.properties) ? declared.properties : {};
  const required = Array.isArray(declared.required)
    ? declared.required.filter((r) => typeof r === "string")
    : [];
  const problems: string[] = [];
  for (const key of required)
    if (!Object.hasOwn(values, key)) problems.push(`missing input "${key}"${describe(properties[key])}`);
  for (const key of given)
    if (!Object.hasOwn(properties, key))
      problems.push(
        `unknown input "${key}" (the plan takes: ${Object.keys(properties).join(", ") || "none"})`,
      );
  if (problems.length > 0) return problems;
  let validate;
  try {
    validate = compileSchema(declared);
  } catch (error) {
    return [`the plan's inputs are not a valid JSON Schema: ${(error as Error).message}`];
  }
  if (validate(values)) return [];
  return formatIssues(validate.errors ?? []).map(
    (line) => `input ${line.replace(/^\//, "").replace(/^\(root\): /, "")}`,
  );
}

function describe(schema: unknown): string {
  if (!isObject(schema)) return "";
  const type = typeof schema.type === "string" ? schema.type : undefined;
  const text = typeof schema.description === "string" ? schema.description : undefined;
  return type || text ? ` (${[type, text].filter(Boolean).join(": ")})` : "";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
