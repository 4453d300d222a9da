import type { PlanIssue } from "../errors/plan-validation-error.js";
import { jsonDepth, MAX_JSON_DEPTH } from "../schema/json-value.js";

/** Longest answer read, in characters, unless the caller says otherwise (a plan of ~500 nodes fits). */
export const DEFAULT_MAX_ANSWER_CHARS = 200_000;

/** A model's answer read as JSON: the value, or the one issue that stopped it. */
export type ReadAnswer = { ok: true; value: unknown } | { ok: false; issue: PlanIssue };

// One fenced block and nothing else: small models often wrap JSON in ```json … ``` even under a response format.
const FENCED = /^```[A-Za-z0-9_-]*\s*\n([\s\S]*?)\n?```$/;

/**
 * Reads what a model answered as the JSON of a plan, treating it as untrusted input: an answer over
 * `maxChars`, one that is empty or not JSON, or one nested deeper than {@link MAX_JSON_DEPTH}, is an issue
 * (`answer_too_large`, `not_json`, `too_deep`), never a crash. Its shape is left to plan validation.
 */
export function readModelAnswer(text: string, maxChars = DEFAULT_MAX_ANSWER_CHARS): ReadAnswer {
  if (text.length > maxChars) {
    return fail(
      "answer_too_large",
      `the answer is ${text.length} characters long; at most ${maxChars} are read — write a smaller plan`,
    );
  }
  const trimmed = text.trim();
  const body = FENCED.exec(trimmed)?.[1] ?? trimmed;
  if (body === "") return fail("not_json", "the answer is empty; answer with the plan as one JSON object");
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch (error) {
    return fail(
      "not_json",
      `the answer is not JSON (${(error as Error).message.slice(0, 200)}); answer with the plan as one JSON object and nothing else`,
    );
  }
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    return fail("too_deep", `the answer is nested more than ${MAX_JSON_DEPTH} levels deep`);
  return { ok: true, value };
}

function fail(code: string, message: string): ReadAnswer {
  return { ok: false, issue: { code, message, severity: "error" } };
}
