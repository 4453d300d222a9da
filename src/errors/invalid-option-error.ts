import { DeputyError } from "./deputy-error.js";

/** An option passed to a deputy entry point is not what it expects. */
export class InvalidOptionError extends DeputyError {
  readonly option: string;

  constructor(option: string, expected: string, got: unknown) {
    super("INVALID_OPTION", `Expected \`${option}\` to be ${expected}, got ${describe(got)}.`);
    this.option = option;
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
