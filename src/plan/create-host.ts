import { agentNodeExecutor } from "../agents/agent-node-executor.js";
import { escalateToAgent } from "../agents/escalate-to-agent.js";
import { ESCALATE_TO_SERVICE } from "../delegate/escalate-to.js";
import { delegateNodeExecutor } from "../delegate/delegate-node-executor.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { ExecutionHost, NodeExecutor } from "./node-executor.js";
import type { PlanNode } from "./plan-schema.js";
import type { RunOptions } from "./run-options.js";
import { toolNodeExecutor } from "./tool-node-executor.js";

/** The built-in executors, one per node type. */
export const builtInExecutors: Partial<Record<PlanNode["type"], NodeExecutor<any>>> = {
  tool: toolNodeExecutor,
  delegate: delegateNodeExecutor,
  agent: agentNodeExecutor,
};

/** Builds the host and executor table a run (or a validation) uses. */
export function createHost(options: Omit<RunOptions, "store">): {
  host: ExecutionHost;
  executors: Partial<Record<PlanNode["type"], NodeExecutor<any>>>;
} {
  const tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  return {
    host: {
      tools,
      delegates: options.delegates ?? [],
      traceSink: options.traceSink,
      allowDelegateSideEffects: options.allowDelegateSideEffects ?? false,
      agents: options.agents ?? {},
      ...(options.budgetScope ? { budgetScope: options.budgetScope } : {}),
      // escalate_to asks a registered agent; a user's own handler in `services` wins.
      services: { [ESCALATE_TO_SERVICE]: escalateToAgent, ...options.services },
    },
    executors: { ...builtInExecutors, ...options.executors },
  };
}
