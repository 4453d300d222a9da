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
import { cachedCall, cacheTtlOf, resultCacheKey, toolDigestText } from "./tool-result-cache.js";

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
      // (`deputy resolve --approve | --reject`) is read on resume, for this same call only. It comes before the
      // cache: an approved call may be answered from it, a call waiting for approval never is.
      const decided = approvalDecided(unit.escalation, unit.resolution, { name: tool.name, arguments: args });
      if (decided.decision === "rejected")
        return { status: "error", error: decided.error, details: decided.details };
      if (decided.decision === "approved") approved = decided.details;
      else {
        const escalation = await approvalNeeded(tool, args, unit, node.require_approval === true);
        if (escalation) return { status: "escalated", escalation };
      }
    }
    const call = async (): Promise<UnitOutcome> => {
      const result = await dispatchTool(tool, args, unit, node.retry, node.timeout);
      return result.ok ? succeeded(result.value, result.attempts) : failed(result.error, result.attempts);
    };
    const ttl = cacheTtlOf(node, tool);
    const cache = unit.host.resultCache;
    const outcome = await (ttl !== undefined && cache
      ? cachedCall(cache, tool, resultCacheKey(tool, args), ttl, call)
      : call());
    return Object.keys(approved).length
      ? { ...outcome, details: { ...approved, ...outcome.details } }
      : outcome;
  },
  prepare(node, host) {
    const tool = host.tools.find(node.tool);
    // Unknown tool: `execute` reports it, per unit. A call that may need approval is asked per unit there too
    // (before any cache lookup), so such a node is never prepared.
    if (!tool || mayNeedApproval(tool, node.require_approval === true)) return undefined;
    return new PreparedToolNode(
      tool,
      compileValue(node.args),
      node.retry,
      node.timeout,
      cacheTtlOf(node, tool),
    );
  },
};

/** A tool node prepared for its for_each items: the tool found and the arguments compiled once. */
class PreparedToolNode implements PreparedNode {
  constructor(
    private readonly tool: Tool,
    private readonly render: ValueRenderer,
    private readonly retry: ToolNode["retry"],
    private readonly timeout: number | undefined,
    private readonly ttl: number | undefined,
  ) {
    this.validate = compileSchema(tool.parameters);
    this.digest = ttl === undefined ? "" : toolDigestText(tool);
  }

  private readonly validate: ValidateFunction;
  /** The tool's definition digest, for cache keys (with `cache` only). */
  private readonly digest: string;

  run(unit: WorkUnit, later: (outcome: UnitOutcome, unit: WorkUnit) => void): UnitOutcome | undefined {
    let args: Record<string, unknown>;
    try {
      args = this.render(unit.scope) as Record<string, unknown>;
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    const invalid = checkToolArgs(this.tool, args, this.validate);
    if (invalid) return { status: "error", error: invalid.toJSON() };
    const cache = unit.host.resultCache;
    if (this.ttl !== undefined && cache) {
      const { tool, retry, timeout } = this;
      const key = resultCacheKey(tool, args, this.digest);
      void cachedCall(cache, tool, key, this.ttl, async () => {
        const r = await dispatchTool(tool, args, unit, retry, timeout);
        return r.ok ? succeeded(r.value, r.attempts) : failed(r.error, r.attempts);
      }).then((outcome) => later(outcome, unit));
      return undefined;
    }
    return dispatchToolThen(this.tool, args, unit, this.retry, this.timeout, succeeded, failed, later);
  }
}

function succeeded(value: unknown, attempts: number): UnitOutcome {
  return attempts > 1 ? { status: "ok", value, details: { attempts } } : { status: "ok", value };
}

function failed(error: SerializedError, attempts: number): UnitOutcome {
  return { status: "error", error, details: { attempts } };
}
