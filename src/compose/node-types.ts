import type { AgentNode } from "../agents/agent-node.js";
import { agentNodeType } from "../agents/agent-node-type.js";
import type { DelegateNode } from "../delegate/delegate-node.js";
import { delegateNodeType } from "../delegate/delegate-node-type.js";
import type { NodeType } from "../plan/node-type.js";
import type { NodeInputOf, PlanInputOf } from "../plan/plan-input.js";
import type { ToolNode } from "../plan/tool-node.js";
import { toolNodeType } from "../plan/tool-node-type.js";

/** The built-in node types: `tool` (the implicit one), `delegate` and `agent`. */
export const builtInNodeTypes: readonly NodeType<any>[] = [toolNodeType, delegateNodeType, agentNodeType];

/** The built-in node types, as their TypeScript types (what {@link PlanInput} is typed from). */
export type BuiltInNodeType = typeof toolNodeType | typeof delegateNodeType | typeof agentNodeType;

/** A node of one of the built-in types, discriminated by `type`. */
export type PlanNode = ToolNode | DelegateNode | AgentNode;

/**
 * A plan as its author writes it in TypeScript: what a plan file holds, every default optional, its nodes a
 * union discriminated by `type` (`tool` — the implicit one —, `delegate`, `agent`, and the types `Extra` made
 * with {@link defineNodeType}: `PlanInput<typeof waitNodeType>`). Derived from the schemas that parse plans, so it
 * cannot drift from them. {@link runPlan} and {@link validatePlan} take it; `ExecutionPlan` is the parsed plan.
 *
 * @example
 * const plan = {
 *   name: "greet",
 *   nodes: [{ id: "hello", tool: "say", args: { text: "hi" }, store_as: "said" }],
 * } satisfies PlanInput;
 */
export type PlanInput<Extra extends NodeType<any> = never> = PlanInputOf<BuiltInNodeType | Extra>;

/** One node of a {@link PlanInput}: a union discriminated by `type`. */
export type PlanNodeInput<Extra extends NodeType<any> = never> = NodeInputOf<BuiltInNodeType | Extra>;
