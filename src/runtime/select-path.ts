import { ExpressionError } from "../errors/expression-error.js";
import { hasOwnKey } from "./own.js";

/** One step of a select path: a key, `[]` (flatten), or `[n]` (index). */
export type PathStep = { key: string } | { flatten: true } | { index: number };

const STEP = /^([A-Za-z0-9_-]+)((?:\[\d*\])*)$/;

/**
 * Parses a select path: keys joined by dots, each optionally followed by `[]` (flatten a list) or `[n]`
 * (take element n), e.g. `alerts[]`, `data.items[].tags[]`, `results[0].name`.
 * Throws `SELECT_INVALID` with the offending part.
 */
export function parseSelectPath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  for (const part of path.split(".")) {
    const m = STEP.exec(part);
    if (!m) {
      throw new ExpressionError(
        "SELECT_INVALID",
        `Select path "${path}": "${part}" is not a key, \`key[]\` or \`key[n]\` (keys hold letters, digits, _ and -).`,
      );
    }
    steps.push({ key: m[1]! });
    for (const b of m[2]!.match(/\[\d*\]/g) ?? []) {
      steps.push(b === "[]" ? { flatten: true } : { index: Number(b.slice(1, -1)) });
    }
  }
  return steps;
}

/**
 * Applies a parsed path. Once a `[]` has flattened a list, later steps apply to every element, and a
 * further `[]` flattens one level more. Missing keys and non-lists are errors that name the step.
 */
export function applySelectPath(value: unknown, steps: PathStep[], label = "value"): unknown {
  let many = false;
  let current: unknown = value;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    if ("flatten" in step) {
      current = many
        ? (current as unknown[]).flatMap((v) => one(v, step, label, steps, k) as unknown[])
        : one(current, step, label, steps, k);
      many = true;
    } else {
      current = many
        ? (current as unknown[]).map((v) => one(v, step, label, steps, k))
        : one(current, step, label, steps, k);
    }
  }
  return current;
}

/** Step `k` of `steps` applied to one value. */
function one(v: unknown, step: PathStep, label: string, steps: PathStep[], k: number): unknown {
  if ("key" in step) {
    // Own keys only: `{item.constructor}` must not hand a tool Object's constructor.
    if (!hasOwnKey(v, step.key)) {
      throw new ExpressionError("SELECT_MISSING", `${where(label, steps, k)} has no key "${step.key}".`);
    }
    return v[step.key];
  }
  if ("index" in step) {
    if (!Array.isArray(v) || step.index >= v.length) {
      throw new ExpressionError(
        "SELECT_MISSING",
        `${where(label, steps, k)} has no element [${step.index}].`,
      );
    }
    return v[step.index];
  }
  if (!Array.isArray(v))
    throw new ExpressionError(
      "SELECT_MISSING",
      `${where(label, steps, k)} is not a list, so it cannot be flattened.`,
    );
  return v;
}

/** The path up to step `k`, for an error message (built only when there is an error). */
function where(label: string, steps: PathStep[], k: number): string {
  let out = label;
  for (const step of steps.slice(0, k))
    out += "key" in step ? `.${step.key}` : "index" in step ? `[${step.index}]` : "[]";
  return out;
}
