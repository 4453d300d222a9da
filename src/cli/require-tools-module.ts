import { InputFileError } from "../errors/input-file-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";

/**
 * Throws one clear error when the plan calls tools and no `--tools` module was given: without it every tool
 * node would be its own `unknown tool` issue, none of which says what is missing.
 */
export function requireToolsModule(
  issues: readonly PlanIssue[],
  tools: string | readonly string[] | undefined,
): void {
  if (typeof tools === "string" ? tools : tools?.length) return;
  const nodes = [
    ...new Set(issues.flatMap((i) => (i.code === "unknown_tool" && i.nodeId ? [i.nodeId] : []))),
  ];
  if (nodes.length === 0) return;
  const named =
    nodes.length > 3 ? `${nodes.slice(0, 3).join(", ")} and ${nodes.length - 3} more` : nodes.join(", ");
  throw new InputFileError(
    "TOOLS_MODULE_MISSING",
    `No tools module was given, and the plan calls tools (${nodes.length === 1 ? "node" : "nodes"} ${named}): pass --tools MODULE, an ES module (.js, .mjs or .ts) that exports \`tools\`, or --tools mcp:stdio:COMMAND… for an MCP server.`,
  );
}
