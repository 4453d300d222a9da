import { Redactor } from "../../traces/redact.js";

// The same redaction as traces (secret-looking keys, credential shapes, a tool's sensitive arguments) for
// everything the console shows: a run's artifacts and proposals reach a page, and a page can be shared.
const redactor = new Redactor();

/** A redacted copy of a value about to be shown; `sensitive` adds argument names to redact (a tool's own list). */
export function shown<T>(value: T, sensitive: readonly string[] = []): T {
  return redactor.redactValue(value, sensitive) as T;
}
