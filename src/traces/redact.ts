import {
  REDACTED,
  ValueRedactor,
  isSecretKey,
  redactRecord,
  redactText,
  type RedactOptions,
  type RedactRule,
} from "../runtime/redact-value.js";
import { setOwn } from "../runtime/own.js";
import type { DelegateTrace } from "./trace.js";

// The value redactor lives in runtime/ so that agents/ and plan/ use it without importing traces/ (see
// docs/architecture.md); these names stay where readers of deputy-js/traces find them.
export { REDACTED, isSecretKey, redactRecord, redactText, type RedactOptions, type RedactRule };

/** A redactor built once from options; apply it to many values and traces. */
export class Redactor extends ValueRedactor {
  /**
   * A redacted copy of a trace: facts, the proposal's and the final call's arguments (with the proposed tool's
   * sensitive names), the instruction, the raw answer and error messages. Tool schemas are left alone (a property
   * named `password` in a schema is not a secret).
   */
  redactTrace(trace: DelegateTrace): DelegateTrace {
    const name = trace.finalCall?.name ?? trace.proposal?.name ?? undefined;
    const sensitive = trace.tools.find((t) => t.name === name)?.sensitive ?? [];
    const found: string[] = [];
    // First pass only to learn the secret values, so that copies of them elsewhere can be scrubbed too.
    this.redactValue(
      { a: trace.proposal?.arguments, f: trace.finalCall?.arguments, x: trace.facts },
      sensitive,
      found,
    );
    const literals = [...new Set(found)].sort((a, b) => b.length - a.length);
    const out: DelegateTrace = {
      ...trace,
      instruction: this.redactString(trace.instruction, literals),
      facts: this.redactValue(trace.facts, [], [], literals) as Record<string, unknown>,
    };
    if (trace.proposal) {
      out.proposal = {
        ...trace.proposal,
        arguments: this.redactValue(trace.proposal.arguments, sensitive, [], literals) as Record<
          string,
          unknown
        >,
        ...(trace.proposal.raw === undefined ? {} : { raw: this.redactString(trace.proposal.raw, literals) }),
      };
    }
    if (trace.finalCall) {
      out.finalCall = {
        name: trace.finalCall.name,
        arguments: this.redactValue(trace.finalCall.arguments, sensitive, [], literals) as Record<
          string,
          unknown
        >,
      };
    }
    if (trace.error)
      out.error = { ...trace.error, message: this.redactString(trace.error.message, literals) };
    return out;
  }
}

/**
 * A copy of `value` with every string longer than `maxChars` cut, ending in `…[+N chars]` so a reader sees that
 * it was cut.
 */
export function capStrings(value: unknown, maxChars: number): unknown {
  if (typeof value === "string") {
    return value.length <= maxChars
      ? value
      : `${value.slice(0, maxChars)}…[+${value.length - maxChars} chars]`;
  }
  if (Array.isArray(value)) return value.map((v) => capStrings(v, maxChars));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, capStrings(v, maxChars));
  return out;
}

/** deputy's one redactor with every default on: what the trace sinks apply. */
export const defaultRedactor = new Redactor();
