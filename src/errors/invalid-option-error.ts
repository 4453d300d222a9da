import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.InvalidOptionError");

/** The codes of {@link InvalidOptionError}. */
export type InvalidOptionErrorCode = "INVALID_OPTION";

/** An option passed to a deputy entry point is not what it expects. */
export class InvalidOptionError extends DeputyError<InvalidOptionErrorCode> {
  readonly option: string;

  constructor(option: string, expected: string, got: unknown) {
    super("INVALID_OPTION", `Expected \`${option}\` to be ${expected}, got ${describe(got)}.`);
    markError(this, marker);
    this.option = option;
  }

  /** True for a InvalidOptionError from this copy of the package or another. */
  static override isInstance(error: unknown): error is InvalidOptionError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { option: this.option } };
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? value.slice(0, 60) + "…" : value);
  if (typeof value === "object")
    return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  return String(value);
}
