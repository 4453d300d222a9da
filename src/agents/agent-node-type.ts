import { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { ValidationContext } from "../plan/node-executor.js";
import type { DefinedNodeType } from "../plan/node-type.js";
import type { Spend } from "../records/spend.js";
import { spendSchema } from "../store/spend-schema.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { agentNodeExecutor } from "./agent-node-executor.js";
import { agentNodeFields, type AgentNode } from "./agent-node.js";
import { isAgent } from "./types.js";

/** What an agent unit keeps (its `details`): the agent and action that ran, the attempts, and what they spent. */
export const agentDetailsSchema = z.strictObject({
  agent: z.string(),
  action: z.string(),
  attempts: z.int().min(1),
  spend: spendSchema.optional(),
});

/**
 * The `agent` node type: a registered agent's action runs with the rendered input (its own tool loop, budgets
 * and delegations); the answer is stored like any artifact, and what every attempt spent is summed per node in
 * the manifest. It reads the host's agents and, inside a delegated call, its budget scope.
 */
export const agentNodeType: DefinedNodeType<"agent", typeof agentNodeFields> = {
  name: "agent",
  fields: agentNodeFields,
  templated: (node) => [["input", node.input]],
  validate: (node, ctx) => validateAgentNode(node, ctx),
  executor: agentNodeExecutor,
  capabilities: ["agents"],
  details: agentDetailsSchema,
  spend: (details) => details.spend as Spend | undefined,
  // A repair keeps an agent's node as it ran (its own loop decided and spent); it names no tools of the plan's.
  modelWrites: { repairable: false, free: [] },
};

/** The agent is registered (with a did-you-mean) and the action is one of its own (or it has only one). */
export function validateAgentNode(node: AgentNode, { host }: ValidationContext): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const agent = host.agents.find(node.agent);
  if (!isAgent(agent)) {
    const hint = didYouMean(node.agent, host.agents.names());
    const known = host.agents.names().join(", ") || "none; export `agents` from the tools module";
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
}
