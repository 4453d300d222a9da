import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.McpSourceError");

/** The codes of {@link McpSourceError}. */
export type McpSourceErrorCode =
  /** A `--tools mcp:…` value (or `mcpTools` options) that does not say which server to start or reach. */
  | "MCP_SOURCE_INVALID"
  /** The server could not be started or reached, or did not finish the MCP handshake. */
  | "MCP_CONNECT_FAILED"
  /** Its tool list cannot be used: not MCP's shape, a tool whose input schema is not JSON Schema, a name clash. */
  | "MCP_TOOLS_INVALID";

/** An MCP server could not be used as a tool source; `server` names it as the host gave it. */
export class McpSourceError extends DeputyError<McpSourceErrorCode> {
  readonly server: string;
  readonly tool: string | undefined;

  constructor(
    code: McpSourceErrorCode,
    server: string,
    message: string,
    options?: { tool?: string; cause?: unknown },
  ) {
    super(code, message, options);
    markError(this, marker);
    this.server = server;
    this.tool = options?.tool;
  }

  /** True for a McpSourceError from this copy of the package or another. */
  static override isInstance(error: unknown): error is McpSourceError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      details: { server: this.server, ...(this.tool !== undefined ? { tool: this.tool } : {}) },
    };
  }
}
