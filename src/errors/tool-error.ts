import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.ToolError");

/** The codes of {@link ToolError}. */
export type ToolErrorCode = "TOOL_NOT_FOUND" | "TOOL_ARGS_INVALID" | "TOOL_DUPLICATE";

/** A tool could not be called: unknown name, arguments that fail its schema, a timeout. */
export class ToolError extends DeputyError<ToolErrorCode> {
  readonly tool: string;
  readonly issues: string[] | undefined;

  constructor(
    code: ToolErrorCode,
    tool: string,
    message: string,
    options?: { issues?: string[]; cause?: unknown },
  ) {
    super(code, message, options);
    markError(this, marker);
    this.tool = tool;
    this.issues = options?.issues;
  }

  /** True for a ToolError from this copy of the package or another. */
  static override isInstance(error: unknown): error is ToolError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      details: { tool: this.tool, ...(this.issues ? { issues: this.issues } : {}) },
    };
  }
}
