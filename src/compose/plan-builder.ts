import type { NodeType } from "../plan/node-type.js";
import { PlanBuilder, type PlanBuilderOf } from "../plan/plan-builder.js";
import type { PlanHeaderInput } from "../plan/plan-input.js";
import { builtInNodeTypes, type BuiltInNodeType } from "./node-types.js";

/** Options of {@link plan}: the plan's fields besides `name` and `nodes`, and node types besides the built-in ones. */
export interface PlanBuilderOptions<Extra extends NodeType<any> = never> extends Omit<
  PlanHeaderInput,
  "name"
> {
  /** Node types of your own (as `runPlan` takes them): each gets a method named after it. Default: none. */
  nodeTypes?: readonly Extra[];
}

/**
 * Writes a plan in TypeScript: one method per node type (`tool`, `delegate`, `agent`, and those in
 * `nodeTypes`), each taking the node's id and its fields, typed from the node type's schema — a misspelt field is
 * a compile error. `build()` gives exactly the JSON a plan file holds (the CLI reads it as it is); the plan is
 * validated where it runs, with the same issues as that file. Each call returns a new builder.
 *
 * @example
 * const triage = plan("alert-triage", { metadata: { max_parallel_tasks: 4 } })
 *   .tool("fetch_alerts", { tool: "fetch_alerts", args: { file: "alerts.json" }, store_as: "alerts" })
 *   .delegate("triage", {
 *     depends_on: ["fetch_alerts"],
 *     for_each: { source: "{artifacts.alerts}", select: "alerts[]" },
 *     instruction: "Pick an action for this alert: {item.summary}",
 *     tools: ["file_jira_ticket", "ignore_alert"],
 *     store_as: "triage_{index}",
 *   })
 *   .build();
 * await runPlan(triage, { tools, delegates: [backend] });
 */
export function plan<Extra extends NodeType<any> = never>(
  name: string,
  options: PlanBuilderOptions<Extra> = {},
): PlanBuilderOf<BuiltInNodeType | Extra> {
  const { nodeTypes = [], ...header } = options ?? {};
  const types = [...builtInNodeTypes, ...(Array.isArray(nodeTypes) ? nodeTypes : [])];
  return PlanBuilder.create(types as readonly (BuiltInNodeType | Extra)[], name, header);
}
