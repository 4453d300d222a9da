import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.InvalidResultError");

/** The codes of {@link InvalidResultError}. */
export type InvalidResultErrorCode = "INVALID_RESULT";

/**
 * A sub-agent's answer did not fit the contract's declared `returns` schema and the contract says
 * `onInvalid: "raise"` (the default, `"error"`, hands `{ error: "invalid_result", … }` to the calling model).
 */
export class InvalidResultError extends DeputyError<InvalidResultErrorCode> {
  /** The tool (delegation) whose result was invalid. */
  readonly tool: string;
  /** Top-level required keys the answer lacks. */
  readonly missing: string[];
  /** Every schema issue, with its JSON path. */
  readonly issues: string[];
  /** The sub-agent's raw answer. */
  readonly content: string;

  constructor(
    tool: string,
    details: { missing: string[]; issues: string[]; content: string; message: string },
  ) {
    super("INVALID_RESULT", details.message);
    markError(this, marker);
    this.tool = tool;
    this.missing = details.missing;
    this.issues = details.issues;
    this.content = details.content;
  }

  /** True for a InvalidResultError from this copy of the package or another. */
  static override isInstance(error: unknown): error is InvalidResultError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { tool: this.tool, missing: this.missing, issues: this.issues } };
  }
}
