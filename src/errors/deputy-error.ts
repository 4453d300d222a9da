const marker = Symbol.for("deputy.error");

/** Plain-data form of an error, safe to put in a manifest or hand to a calling model. */
export interface SerializedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Base of every error deputy throws. `code` is stable across releases (each subclass lists its codes as a
 * union type); `isInstance` works across duplicate copies of the package (it checks a global symbol, not the
 * prototype chain), and each subclass has its own.
 *
 * @example
 * try { await runPlan(plan, options); }
 * catch (error) { if (PlanValidationError.isInstance(error)) console.error(error.issues); else throw error; }
 */
export class DeputyError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    markError(this, marker);
  }

  /** True for any deputy error, from this copy of the package or another. */
  static isInstance(error: unknown): error is DeputyError {
    return isMarked(error, marker);
  }

  /** The error as plain data; subclasses add their typed context to `details`. */
  toJSON(): SerializedError {
    return { code: this.code, message: this.message };
  }
}

/**
 * Brands an error with a global symbol (non-enumerable), so `isInstance` recognises it across copies.
 *
 * @internal
 */
export function markError(error: object, symbol: symbol): void {
  Object.defineProperty(error, symbol, { value: true, enumerable: false });
}

/** @internal */
export function isMarked(error: unknown, symbol: symbol): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[symbol] === true;
}

/** Turns anything thrown into plain data (never throws itself). */
export function serializeError(error: unknown): SerializedError {
  if (DeputyError.isInstance(error)) return error.toJSON();
  if (error instanceof Error) {
    const code = error.name === "AbortError" || error.name === "TimeoutError" ? "ABORTED" : "ERROR";
    return { code, message: error.message || error.name };
  }
  return { code: "ERROR", message: typeof error === "string" ? error : describeThrown(error) };
}

/** A one-line description of a thrown non-Error (JSON when it can be, never throwing). */
function describeThrown(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (typeof json === "string") return json;
  } catch {
    // circular, BigInt, a throwing toJSON: fall through
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
