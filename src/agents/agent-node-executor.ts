import { serializeError } from "../errors/deputy-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { NodeExecutor } from "../plan/node-executor.js";
import type { AgentNode } from "../plan/plan-schema.js";
import { dispatchTool } from "../plan/dispatch-tool.js";
import { renderValue } from "../runtime/template.js";
import type { Tool } from "../tools/define-tool.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { runAgentAction } from "./run-agent-action.js";
import { isAgent, type Agent } from "./types.js";

/** The action an agent node runs: the one it names, or the agent's only action. */
function actionOf(node: AgentNode, agent: Agent): string | undefined {
  if (node.action) return node.action;
  const names = Object.keys(agent.actions);
  return names.length === 1 ? names[0] : undefined;
}

/**
 * Runs `agent` nodes: renders `input`, runs the agent's action (its own tool loop, budgets and delegations)
 * with the node's retry and timeout (the timeout aborts the agent's requests), stores the answer (`data` when
 * the action declares `returns`, else the text), and keeps what it spent — calls, tokens, cost, duration — in
 * the node's (or item's) details, which the manifest sums per node.
 */
export const agentNodeExecutor: NodeExecutor<AgentNode> = {
  validate(node, { host }) {
    const issues: PlanIssue[] = [];
    const agent = host.agents[node.agent];
    if (!isAgent(agent)) {
      const hint = didYouMean(node.agent, Object.keys(host.agents));
      const known = Object.keys(host.agents).join(", ") || "none; export `agents` from the tools module";
      issues.push({
        code: "unknown_agent",
        nodeId: node.id,
        path: "agent",
        severity: "error",
        message: `unknown agent "${node.agent}"${hint ? ` (did you mean "${hint}"?)` : ""}; registered: ${known}`,
      });
      return issues;
    }
    const actions = Object.keys(agent.actions);
    if (node.action && !actions.includes(node.action)) {
      issues.push({
        code: "unknown_action",
        nodeId: node.id,
        path: "action",
        severity: "error",
        message: `agent "${node.agent}" has no action "${node.action}"; its actions: ${actions.join(", ")}`,
      });
    } else if (!node.action && actions.length !== 1) {
      issues.push({
        code: "missing_action",
        nodeId: node.id,
        path: "action",
        severity: "error",
        message: `agent "${node.agent}" has ${actions.length} actions (${actions.join(", ")}); name one with "action"`,
      });
    }
    return issues;
  },

  async execute(node, unit) {
    const agent = unit.host.agents[node.agent];
    if (!isAgent(agent)) {
      return {
        status: "error",
        error: { code: "AGENT_NOT_FOUND", message: `Unknown agent "${node.agent}".` },
      };
    }
    const action = actionOf(node, agent);
    if (!action) {
      return {
        status: "error",
        error: { code: "AGENT_ACTION", message: `Agent "${node.agent}" needs an action.` },
      };
    }
    let input: Record<string, unknown>;
    try {
      input = renderValue(node.input, unit.scope) as Record<string, unknown>;
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    let spend: Record<string, number> | undefined;
    // The agent's action, dispatched like a tool: the same retry, timeout and abort rules as every node.
    const asTool: Tool = {
      name: `agent:${node.agent}.${action}`,
      description: `agent ${node.agent}`,
      delegateDescription: undefined,
      parameters: {},
      delegateSafe: false,
      sensitive: [],
      run: async (args: unknown, ctx) => {
        const outcome = await runAgentAction(agent, action, args, { signal: ctx.signal });
        spend = { ...outcome.spend };
        return outcome.value;
      },
    };
    const result = await dispatchTool(asTool, input, unit, node.retry, node.timeout);
    const details = { agent: node.agent, action, attempts: result.attempts, ...(spend ? { spend } : {}) };
    return result.ok
      ? { status: "ok", value: result.value, details }
      : { status: "error", error: result.error, details };
  },
};
