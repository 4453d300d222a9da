import {
  planTools as planToolsOf,
  type PlanToolkit,
  type PlanToolsOptions as AuthoringPlanToolsOptions,
} from "../authoring/plan-tools.js";
import { createHost, type HostOptions } from "./host.js";

/** Options of {@link planTools}: the wiring of the runs (as for {@link runPlan}), the store, the model, the plans. */
export interface PlanToolsOptions
  extends HostOptions, Omit<AuthoringPlanToolsOptions, "tools" | "host" | "nodeTypes"> {}

/**
 * Gives an agent execution plans as tools — `plan_execute` (an objective, a named plan with inputs, or a plan as
 * JSON), `plan_validate`, `plan_status`, `plan_artifacts`, `plan_resume` — with the built-in node types (and
 * `nodeTypes`) and the host wired as for {@link runPlan}. The tools are the boundary: a plan the model writes
 * sees only them. Runs that outlast `softTimeout` go on in the background; refusals are data
 * (`{ error, message }`). See `docs/plan-authoring.md`, "The toolkit".
 *
 * @example
 * const toolkit = planTools({ tools: [fetchAlerts, fileTicket], store: new SqliteRunStore("runs.db"), model });
 * const { text } = await generateText({ model, tools: toAiSdkTools(toolkit.tools), stopWhen: isStepCount(8), prompt });
 * await toolkit.settle();
 */
export function planTools(options: PlanToolsOptions): PlanToolkit {
  const composed = createHost(options);
  return planToolsOf({ ...options, tools: composed.host.tools, ...composed });
}
