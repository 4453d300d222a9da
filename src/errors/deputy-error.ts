const marker = Symbol.for("deputy.error");

/** Plain-data form of an error, safe to put in a manifest or hand to a calling model. */
export interface SerializedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Base of every error deputy throws. `code` is stable across releases; `isInstance` works across
 * duplicate copies of the package (it checks a global symbol, not the prototype chain).
 */
export class DeputyError extends Error {
  readonly [marker] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  static isInstance(error: unknown): error is DeputyError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  /** The error as plain data; subclasses add their typed context to `details`. */
  toJSON(): SerializedError {
    return { code: this.code, message: this.message };
  }
}

/** Turns anything thrown into plain data (never throws itself). */
export function serializeError(error: unknown): SerializedError {
  if (DeputyError.isInstance(error)) return error.toJSON();
  if (error instanceof Error) {
    const code = error.name === "AbortError" || error.name === "TimeoutError" ? "ABORTED" : "ERROR";
    return { code, message: error.message || error.name };
  }
  return { code: "ERROR", message: typeof error === "string" ? error : JSON.stringify(error) };
}
