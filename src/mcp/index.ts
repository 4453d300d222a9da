/**
 * `deputy-js/mcp` — deputy and the Model Context Protocol: named plans served as MCP tools (`servePlans`, over
 * stdio or Streamable HTTP on 127.0.0.1), on the official SDK.
 *
 * @packageDocumentation
 */
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
