import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { ToolError } from "../errors/tool-error.js";
import type { ToolNode } from "./tool-node.js";
import type { NodeExecutor, PreparedNode, UnitOutcome, WorkUnit } from "./node-executor.js";
import type { Tool } from "../tools/define-tool.js";
import { compileSchema, type ValidateFunction } from "../schema/validator.js";

import { approvalDecided, approvalNeeded } from "../runtime/approval-step.js";
import { checkToolArgs, dispatchTool, dispatchToolThen } from "../runtime/dispatch-tool.js";
import { mayNeedApproval } from "../tools/tool-approval.js";
import { compileValue, renderValue, type ValueRenderer } from "../runtime/template.js";

/**
 * Runs `tool` nodes: render the arguments, check them against the tool's schema, pause for a person's approval
 * when the call needs one (the tool's `needsApproval`, the node's `require_approval`), dispatch with retry.
 */
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
    let approved: Record<string, unknown> = {};
    if (mayNeedApproval(tool, node.require_approval === true)) {
      // A call that needs approval pauses before it runs, as a delegate's escalation does; a person's decision
      // (`deputy resolve --approve | --reject`) is read on resume, for this same call only.
      const decided = approvalDecided(unit.escalation, unit.resolution, { name: tool.name, arguments: args });
      if (decided.decision === "rejected")
        return { status: "error", error: decided.error, details: decided.details };
      if (decided.decision === "approved") approved = decided.details;
      else {
        const escalation = await approvalNeeded(tool, args, unit, node.require_approval === true);
        if (escalation) return { status: "escalated", escalation };
      }
    }
    const result = await dispatchTool(tool, args, unit, node.retry, node.timeout);
    const details = { ...approved, ...(result.attempts > 1 ? { attempts: result.attempts } : {}) };
    return result.ok
      ? { status: "ok", value: result.value, ...(Object.keys(details).length ? { details } : {}) }
      : { status: "error", error: result.error, details: { ...approved, attempts: result.attempts } };
  },
  prepare(node, host) {
    const tool = host.tools.find(node.tool);
    // Unknown tool: `execute` reports it, per unit. A call that may need approval is asked per unit there too.
    if (!tool || mayNeedApproval(tool, node.require_approval === true)) return undefined;
    return new PreparedToolNode(tool, compileValue(node.args), node.retry, node.timeout);
  },
};

/** A tool node prepared for its for_each items: the tool found and the arguments compiled once. */
class PreparedToolNode implements PreparedNode {
  constructor(
    private readonly tool: Tool,
    private readonly render: ValueRenderer,
    private readonly retry: ToolNode["retry"],
    private readonly timeout: number | undefined,
  ) {
    this.validate = compileSchema(tool.parameters);
  }

  private readonly validate: ValidateFunction;

  run(unit: WorkUnit, later: (outcome: UnitOutcome, unit: WorkUnit) => void): UnitOutcome | undefined {
    let args: Record<string, unknown>;
    try {
      args = this.render(unit.scope) as Record<string, unknown>;
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    const invalid = checkToolArgs(this.tool, args, this.validate);
    if (invalid) return { status: "error", error: invalid.toJSON() };
    return dispatchToolThen(this.tool, args, unit, this.retry, this.timeout, succeeded, failed, later);
  }
}

function succeeded(value: unknown, attempts: number): UnitOutcome {
  return attempts > 1 ? { status: "ok", value, details: { attempts } } : { status: "ok", value };
}

function failed(error: SerializedError, attempts: number): UnitOutcome {
  return { status: "error", error, details: { attempts } };
}
