import { RunError } from "../../errors/run-error.js";
import type { Resolution } from "../../records/escalation.js";

/**
 * What a decision may hold: exactly one of `call`, `value`, `skip` (a delegate's escalation), `approve` or
 * `reject` (an approval; `reason` only with `reject`), whoever sent it (library, `deputy resolve`, console).
 */
export interface DecisionFields {
  call?: unknown;
  value?: unknown;
  skip?: unknown;
  approve?: unknown;
  reject?: unknown;
  reason?: unknown;
}

/**
 * The one check that a person's decision is exactly one of `call`, `value`, `skip`, `approve` or `reject` (with
 * an optional `reason`), and that a `call` is
 * `{ name, arguments? }` with a non-empty name and an object of arguments (default `{}`). The library's
 * `resolveEscalation`, `deputy resolve` and the console's inbox all go through it, so a mistake reads the same
 * everywhere. A field counts as given when it is not `undefined` (`value: null` is a value); `skip` is given
 * only as `true`.
 *
 * Throws `RunError` `RESOLUTION_INVALID` naming what is wrong.
 *
 * @example
 * checkDecision({ call: { name: "page" } }); // { kind: "call", call: { name: "page", arguments: {} } }
 */
export function checkDecision(fields: DecisionFields): Resolution {
  const { call, value, skip, approve, reject, reason } = fields;
  const approval = approve === true || reject === true;
  const given = [
    call !== undefined,
    value !== undefined,
    skip === true,
    approve === true,
    reject === true,
  ].filter(Boolean).length;
  if (given !== 1) {
    throw invalid(
      approval || reason !== undefined
        ? `A decision gives exactly one of call, value, skip, approve or reject (got ${given}).`
        : `A decision gives exactly one of call, value or skip (got ${given}).`,
    );
  }
  if (reason !== undefined && reject !== true) throw invalid("A decision's reason goes with reject only.");
  if (approve === true) return { kind: "approve" };
  if (reject === true) {
    if (reason === undefined) return { kind: "reject" };
    if (typeof reason !== "string" || reason.trim() === "" || reason.length > 1000) {
      throw invalid(
        `A rejection's reason is a non-empty string of at most 1000 characters (got ${describe(reason)}).`,
      );
    }
    return { kind: "reject", reason: reason.trim() };
  }
  if (skip === true) return { kind: "skip" };
  if (call === undefined) return { kind: "value", value };
  if (typeof call !== "object" || call === null || Array.isArray(call)) {
    throw invalid(`A decision's call is {"name": TOOL, "arguments": {...}} (got ${describe(call)}).`);
  }
  const { name, arguments: args = {}, ...extra } = call as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || name.trim() === "") {
    throw invalid(`A decision's call names its tool: "name" is a non-empty string (got ${describe(name)}).`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw invalid(`A decision's call.arguments is a JSON object (got ${describe(args)}).`);
  }
  const unknown = Object.keys(extra);
  if (unknown.length > 0) {
    throw invalid(`A decision's call has only "name" and "arguments" (got also ${unknown.join(", ")}).`);
  }
  return { kind: "call", call: { name, arguments: args as Record<string, unknown> } };
}

function invalid(message: string): RunError {
  return new RunError("RESOLUTION_INVALID", message);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
