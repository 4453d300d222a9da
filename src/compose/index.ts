/**
 * The composition root: the one place that wires the parts together — the built-in node types (tool, delegate,
 * agent) with the engine (which itself knows no node type), the host a run is given, the run and resume entries,
 * plans as tools and as delegations, and the CLI's and console's run and resume set-up. The package's root entry
 * re-exports the public names from here; cli/, ui/, mcp/ and distributed/ import them from here, never from the
 * package root.
 *
 * @packageDocumentation
 */
export {
  builtInNodeTypes,
  type BuiltInNodeType,
  type PlanInput,
  type PlanNode,
  type PlanNodeInput,
} from "./node-types.js";
export { createHost, type DeputyHost, type HostOptions } from "./host.js";
export { resumeRun, runPlan, withProposalCache, type ResumeOptions, type RunOptions } from "./run.js";
export { startPlan, startResume, type PlanRun, type PlanRunEvent } from "./start-plan.js";
export { plan, type PlanBuilderOptions } from "./plan-builder.js";
export { delegateToPlan, type DelegateToPlanOptions } from "./delegate-to-plan.js";
export { planTools, type PlanToolsOptions } from "./plan-tools.js";
export { createDelegateFromSpec, defaultDelegateSpecs } from "./delegate-specs.js";
export { absoluteSpec, noticeWithoutWorkers, setupRun, toolSourcesOf, type RunFlags } from "./run-setup.js";
export { DEFAULT_STORE, isPostgresUrl, openStore, requirePostgres, storeLocation } from "./open-store.js";
export {
  claimResume,
  type ClaimedResume,
  type ClaimOptions,
  type ResumeOverrides,
  type ResumeSetupOptions,
} from "./resume-setup.js";
export { recordedToolSources, toolsForResume, type ResumeTools } from "./resume-tools.js";
export { readPlanFile } from "./read-plan-file.js";
export { loadToolSources } from "./load-tool-sources.js";
