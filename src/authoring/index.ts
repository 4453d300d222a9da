/**
 * Plans written by a model, and plans run by name: {@link authorPlan} turns an objective into a validated plan
 * (the allowed tools are the boundary; one correction round); {@link findNamedPlan} and
 * {@link checkPlanInputs} run a folder's plans by name with their declared inputs; {@link planTools} gives an
 * agent plans as tools (`plan_execute`, `plan_status`, …). See `docs/plan-authoring.md`.
 *
 * @packageDocumentation
 */
export {
  authorPlan,
  type AuthorPlanOptions,
  type AuthorPlanResult,
  type AuthoringUsage,
} from "./author-plan.js";
export { toolCatalogue, type CatalogueEntry } from "./tool-catalogue.js";
export { modelFromSpec, type ModelFromSpec } from "./model-spec.js";
export { findNamedPlan, listNamedPlans, type NamedPlan } from "./named-plans.js";
export { planTools, type PlanToolkit, type PlanToolsOptions } from "./plan-tools.js";
export {
  PLAN_TOOL_REFUSALS,
  type PlanToolRefusal,
  type PlanToolRefusalCode,
  type RunAnswer,
} from "./plan-tools-answers.js";
export { checkPlanInputs, inputsFromFlags } from "./plan-inputs.js";
