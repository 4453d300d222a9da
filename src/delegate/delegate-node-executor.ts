import type { DelegateNode } from "../plan/plan-schema.js";
import type { NodeExecutor } from "../plan/node-executor.js";

/** Runs `delegate` nodes. (Placeholder until the delegate-nodes work lands.) */
export const delegateNodeExecutor: NodeExecutor<DelegateNode> = {
  validate(node) {
    return [
      {
        code: "delegate_unsupported",
        nodeId: node.id,
        severity: "error",
        message: "delegate nodes are not supported yet",
      },
    ];
  },
  async execute() {
    return { status: "error", error: { code: "UNSUPPORTED", message: "delegate nodes are not supported yet" } };
  },
};
