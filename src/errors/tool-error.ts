import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.ToolError");

/** The codes of {@link ToolError}. */
export type ToolErrorCode =
  | "TOOL_NOT_FOUND"
  | "TOOL_ARGS_INVALID"
  | "TOOL_DUPLICATE"
  /** The tool ran and reported a failure (an MCP `isError` result, a JSON-RPC error, a server gone). */
  | "TOOL_FAILED"
  /** Its result is larger than the bound its source sets (an MCP server's `maxResultBytes`). */
  | "TOOL_RESULT_TOO_LARGE";

/** A tool could not be called or failed: unknown name, arguments that fail its schema, its own error. */
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
