/// <reference types="node" preserve="true" />
/**
 * `deputy-js/mcp` — MCP servers as tool sources: {@link mcpTools} connects to servers over stdio or Streamable
 * HTTP (the official MCP client) and gives their tools as deputy tools, for plans, delegates and agents alike.
 * Annotations are hints: only a server the host marks `trusted` makes a `readOnlyHint: true` tool
 * delegate-safe. See docs/tools.md, "MCP servers as tool sources".
 *
 * @example
 * import { mcpTools } from "deputy-js/mcp";
 * await using fs = await mcpTools({ command: "mcp-server-filesystem", args: ["./data"], trusted: true });
 * const manifest = await runPlan(plan, { tools: fs, delegates: [backend] });
 *
 * Also deputy as an MCP server: named plans served as MCP tools (`servePlans`, over stdio or Streamable HTTP on
 * 127.0.0.1). See docs/tools.md, "deputy as an MCP server".
 *
 * @packageDocumentation
 */
export {
  mcpTools,
  McpTools,
  type McpHttpServer,
  type McpServerInfo,
  type McpServerOptions,
  type McpStdioServer,
  type McpToolsOptions,
} from "./mcp-tools.js";
export type { McpToolAnnotations } from "./mcp-answers.js";
export { isMcpSpec, parseMcpSpec, splitCommandLine, type McpSpecContext } from "./mcp-source-spec.js";
export {
  servePlans,
  RUN_STATUS_TOOL,
  type CloseOptions,
  type DecideHints,
  type PlanServer,
  type ServedPlanTool,
  type ServePlansOptions,
  type WaitingDecision,
} from "./serve-plans.js";
export { servePlansHttp, type RunningPlanServer, type ServePlansHttpOptions } from "./serve-http.js";
export { servePlansStdio, type ServePlansStdioOptions, type StdioPlanServer } from "./serve-stdio.js";
