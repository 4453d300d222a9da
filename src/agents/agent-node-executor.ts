import { serializeError } from "../errors/deputy-error.js";
import type { NodeExecutor } from "../plan/node-executor.js";
import { dispatchTool } from "../runtime/dispatch-tool.js";
import { renderValue } from "../runtime/template.js";
import type { Tool } from "../tools/define-tool.js";
import type { AgentNode } from "./agent-node.js";
import { admitInScope, noteRaised } from "./call-scope.js";
import { agentHost } from "./host-capabilities.js";
import type { LedgerTotals } from "./ledger.js";
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
 * the action declares `returns`, else the text), and keeps what every attempt spent — calls, tokens, cost,
 * duration — in the node's (or item's) details, which the manifest sums per node. Inside a delegated call (the
 * host's budget scope) each attempt is first checked against the caller's remaining budgets, and the agent runs
 * one level below the caller, spending from every ancestor. Its checks are the node type's (`agentNodeType`).
 */
export const agentNodeExecutor: NodeExecutor<AgentNode> = {
  async execute(node, unit) {
    const agent = unit.host.agents.find(node.agent);
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
    const scope = agentHost(unit.host).budgetScope;
    // Every attempt's spend, read when the node ends: a failed or abandoned (timed out) attempt spent too.
    const meters: (() => LedgerTotals)[] = [];
    // The agent's action, dispatched like a tool: the same retry, timeout and abort rules as every node.
    const asTool: Tool = {
      name: `agent:${node.agent}.${action}`,
      description: `agent ${node.agent}`,
      delegateDescription: undefined,
      parameters: {},
      delegateSafe: false,
      sensitive: [],
      run: async (args: unknown, ctx) => {
        if (scope) admitInScope(scope, agent.name, action);
        try {
          const outcome = await runAgentAction(agent, action, args, {
            signal: ctx.signal,
            onMeter: (m) => meters.push(m),
            ...(scope ? { scope } : {}),
          });
          return outcome.value;
        } catch (error) {
          if (scope) noteRaised(scope, error);
          throw error;
        }
      },
    };
    const result = await dispatchTool(asTool, input, unit, node.retry, node.timeout);
    const spend = meters.length > 0 ? sumSpend(meters.map((m) => m())) : undefined;
    const details = { agent: node.agent, action, attempts: result.attempts, ...(spend ? { spend } : {}) };
    return result.ok
      ? { status: "ok", value: result.value, details }
      : { status: "error", error: result.error, details };
  },
};

function sumSpend(all: LedgerTotals[]): LedgerTotals {
  const total = { calls: 0, tokens: 0, cost: 0, duration: 0 };
  for (const s of all) {
    total.calls += s.calls;
    total.tokens += s.tokens;
    total.cost += s.cost;
    total.duration += s.duration;
  }
  total.cost = Math.round(total.cost * 1e9) / 1e9;
  total.duration = Math.round(total.duration * 1000) / 1000;
  return total;
}
