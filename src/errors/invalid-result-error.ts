import { DeputyError } from "./deputy-error.js";

/**
 * A sub-agent's answer did not fit the contract's declared `returns` schema and the contract says
 * `onInvalid: "raise"` (the default, `"error"`, hands `{ error: "invalid_result", … }` to the calling model).
 */
export class InvalidResultError extends DeputyError {
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
    this.tool = tool;
    this.missing = details.missing;
    this.issues = details.issues;
    this.content = details.content;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { tool: this.tool, missing: this.missing, issues: this.issues } };
  }
}
