import { DelegateBackendError } from "../../errors/index.js";

/** A model's answer as the proposal shape, before the gate judges it. */
export interface ParsedProposal {
  name: string | null;
  arguments: Record<string, unknown>;
}

/**
 * Parses a model's raw answer into `{ name, arguments }`. Anything that is not a JSON object with a string or
 * null `name` and (for a call) an object `arguments` is a {@link DelegateBackendError} carrying the raw text:
 * the gate's `backend_error`. Whether the name is a candidate and the arguments fit is the gate's business.
 */
export function parseProposal(backend: string, raw: string): ParsedProposal {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new DelegateBackendError(backend, `${backend} answered something that is not JSON`, { cause, raw });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DelegateBackendError(backend, `${backend} answered JSON that is not an object`, { raw });
  }
  const obj = value as Record<string, unknown>;
  if (obj.name !== null && typeof obj.name !== "string") {
    throw new DelegateBackendError(backend, `${backend} answered without a string or null "name"`, { raw });
  }
  const args = obj.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new DelegateBackendError(backend, `${backend} answered "arguments" that is not an object`, { raw });
  }
  return { name: obj.name, arguments: obj.name === null ? {} : (args as Record<string, unknown>) };
}
