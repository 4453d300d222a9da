import { DeputyError } from "./deputy-error.js";

/** A tool could not be called: unknown name, arguments that fail its schema, a timeout. */
export class ToolError extends DeputyError {
  readonly tool: string;
  readonly issues: string[] | undefined;

  constructor(code: string, tool: string, message: string, options?: { issues?: string[]; cause?: unknown }) {
    super(code, message, options);
    this.tool = tool;
    this.issues = options?.issues;
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      details: { tool: this.tool, ...(this.issues ? { issues: this.issues } : {}) },
    };
  }
}
