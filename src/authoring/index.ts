/// <reference types="node" preserve="true" />
/**
 * Plans written and repaired by a model, and plans run by name: {@link authorPlan} turns an objective into a
 * validated plan (the allowed tools are the boundary; one correction round; held to the rules a repair's delta
 * obeys, its calls of tools with side effects waiting for {@link approveAuthoredRun}); {@link repairRun} asks for a plan
 * delta that replaces a failed run's failed nodes, kept as a pending repair that {@link approveRepair} applies
 * as a child run (or {@link rejectRepair} turns down); {@link findNamedPlan} and {@link checkPlanInputs} run a
 * folder's plans by name with their declared inputs; {@link planToolsOnHost} gives an agent all of it as tools
 * (`plan_execute`, `plan_status`, `plan_repair`, …). See `docs/plan-authoring.md`.
 *
 * @packageDocumentation
 */
export {
  authorPlan,
  type AuthorPlanOptions,
  type AuthorPlanResult,
  type AuthoringUsage,
} from "./author-plan.js";
export {
  AUTHORED_PLAN_ISSUE_CODES,
  renderApprovalRequest,
  type AuthoredToolCall,
} from "./authored-plan-policy.js";
export {
  approveAuthoredRun,
  type ApproveAuthoredRunOptions,
  type ApprovedAuthoredRun,
} from "./authored-approval.js";
export { DEFAULT_AUTHORED_CONFIDENCE_FLOOR } from "./model-write-policy.js";
export type { AuthoredApproval } from "../store/run-options-record.js";
export { toolCatalogue, type CatalogueEntry } from "./tool-catalogue.js";
export { modelFromSpec, type ModelFromSpec } from "./model-spec.js";
export { findNamedPlan, listNamedPlans, type NamedPlan } from "./named-plans.js";
// The root entry's `planTools` wires the built-in node types and the host (as `runPlan` does); this one takes a
// host and node types of your own, so it carries another name (a name means one thing across deputy's subpaths).
export {
  planTools as planToolsOnHost,
  type PlanToolkit,
  type PlanToolsOptions as PlanToolsOnHostOptions,
} from "./plan-tools.js";
export {
  PLAN_TOOL_REFUSALS,
  type PendingApprovalAnswer,
  type PlanToolRefusal,
  type PlanToolRefusalCode,
  type RunAnswer,
} from "./plan-tools-answers.js";
export { checkPlanInputs, inputsFromFlags } from "./plan-inputs.js";
export {
  DEFAULT_MAX_REPAIR_ROUNDS,
  repairRun,
  type RepairRunOptions,
  type RepairRunResult,
} from "./repair-run.js";
export {
  approveRepair,
  pendingRepairs,
  rejectRepair,
  type ApprovedRepair,
  type ApproveRepairOptions,
  type PendingRepair,
  type RejectRepairOptions,
  type RepairDecisionOptions,
} from "./repair-decisions.js";
export {
  checkRepairDelta,
  DELTA_ISSUE_CODES,
  type CheckedDelta,
  type DeltaContext,
  type DeltaIssueCode,
} from "./repair-delta.js";
export { renderRepairDiff } from "./repair-diff.js";
export type { RepairChange, RepairRecord, RepairStatus } from "../store/run-state.js";
