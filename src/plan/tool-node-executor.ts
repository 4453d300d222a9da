import { serializeError } from "../errors/deputy-error.js";
import { ToolError } from "../errors/tool-error.js";
import type { ToolNode } from "./plan-schema.js";
import type { NodeExecutor } from "./node-executor.js";
import { checkToolArgs, dispatchTool } from "../runtime/dispatch-tool.js";
import { renderValue } from "../runtime/template.js";

/** Runs `tool` nodes: render the arguments, check them against the tool's schema, dispatch with retry. */
export const toolNodeExecutor: NodeExecutor<ToolNode> = {
  async execute(node, unit) {
    const tool = unit.host.tools.find(node.tool);
    if (!tool) {
      return {
        status: "error",
        error: new ToolError("TOOL_NOT_FOUND", node.tool, `Unknown tool "${node.tool}".`).toJSON(),
      };
    }
    let args: Record<string, unknown>;
    try {
      args = renderValue(node.args, unit.scope) as Record<string, unknown>;
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    const invalid = checkToolArgs(tool, args);
    if (invalid) return { status: "error", error: invalid.toJSON() };
    const result = await dispatchTool(tool, args, unit, node.retry, node.timeout);
    return result.ok
      ? {
          status: "ok",
          value: result.value,
          ...(result.attempts > 1 ? { details: { attempts: result.attempts } } : {}),
        }
      : { status: "error", error: result.error, details: { attempts: result.attempts } };
  },
};
