import { schemaRequired, type JsonSchema } from "../schema/json-schema.js";
import { validateValue } from "../schema/validator.js";

/** A sub-agent answer that does not fit its declared output, as the calling model receives it. */
export interface InvalidResult {
  error: "invalid_result";
  /** Top-level required keys the answer lacks (all of them when no JSON could be found). */
  missing: string[];
  /** Every schema issue, with its JSON path (types, enums, nested required…). */
  issues: string[];
  message: string;
  /** The raw answer. */
  content: string;
}

/** The parsed, validated answer, or why it does not fit. */
export type ResultCheck = { ok: true; data: unknown } | ({ ok: false } & InvalidResult);

/**
 * Parses a sub-agent's answer and validates it against the whole `returns` schema. The JSON may be wrapped in
 * prose or a code fence ("Here you go: {…}"): the first value that parses and fits wins, else the first that
 * parses is reported.
 */
export function checkResult(schema: JsonSchema, text: string, tool: string): ResultCheck {
  const candidates = jsonCandidates(text);
  let firstParsed: { value: unknown; issues: string[] } | undefined;
  for (const candidate of candidates) {
    const result = validateValue(schema, candidate);
    if (result.ok) return { ok: true, data: candidate };
    firstParsed ??= { value: candidate, issues: result.issues };
  }
  const required = schemaRequired(schema);
  if (!firstParsed) {
    return {
      ok: false,
      error: "invalid_result",
      missing: required,
      issues: ["(root): the answer contains no JSON value"],
      message: `\`${tool}\` answered with text that contains no JSON; expected ${describeShape(schema)}.`,
      content: text,
    };
  }
  const value = firstParsed.value;
  const missing =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? required.filter((k) => !(k in value))
      : required;
  return {
    ok: false,
    error: "invalid_result",
    missing,
    issues: firstParsed.issues,
    message:
      `\`${tool}\` answered with a result that does not match its declared output` +
      (missing.length > 0 ? ` (missing ${missing.join(", ")})` : "") +
      `: ${firstParsed.issues.slice(0, 5).join("; ")}.`,
    content: text,
  };
}

/** Every JSON value found in `text`: the whole text, fenced blocks, then balanced `{…}` / `[…]` spans. */
export function jsonCandidates(text: string): unknown[] {
  const out: unknown[] = [];
  const tryParse = (s: string): void => {
    try {
      out.push(JSON.parse(s));
    } catch {
      // not JSON; keep looking
    }
  };
  tryParse(text.trim());
  for (const match of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) tryParse(match[1]!.trim());
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== "{" && c !== "[") continue;
    const end = balancedEnd(text, i);
    if (end > i) {
      const before = out.length;
      tryParse(text.slice(i, end + 1));
      if (out.length > before) i = end;
    }
  }
  return out;
}

/** Index of the bracket closing the one at `start` (string-aware), or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

function describeShape(schema: JsonSchema): string {
  const required = schemaRequired(schema);
  return required.length > 0 ? `an object with ${required.join(", ")}` : "a JSON value";
}
