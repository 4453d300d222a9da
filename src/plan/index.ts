/**
 * Execution plans: validate a JSON DAG of nodes of registered node types (the root entry registers tool,
 * delegate and agent), run it with real concurrency, checkpoint every node and item, and resume after a crash
 * or an escalation.
 */
export {
  checkToolArgs,
  dispatchTool,
  type DispatchResult,
  type DispatchRetry,
  type DispatchUnit,
} from "../runtime/dispatch-tool.js";
export { canonicalJson, planFingerprint } from "./fingerprint.js";
export { MemoryRunStore } from "../store/memory-run-store.js";
export { agentResolver, type AgentResolver, type BudgetScope } from "./host-capabilities.js";
export type {
  ExecutionHost,
  NodeExecutor,
  UnitDispatcher,
  UnitOutcome,
  ValidationContext,
  WorkUnit,
} from "./node-executor.js";
export type { BaseNode, ExecutionPlan, ForEach, PlanMetadata, RetryPolicy } from "./plan-schema.js";
export {
  defineNodeType,
  type NodeOf,
  type NodeType,
  type NodeTypeSpec,
  type TemplatedField,
} from "./node-type.js";
export { NodeTypeTable } from "./node-type-table.js";
export { planJsonSchema } from "./plan-json-schema.js";
export { toolNodeType } from "./tool-node-type.js";
export type { ToolNode } from "./tool-node.js";
export { nodeChannel, runChannel, type RunEvent } from "./run-events.js";
export { buildManifest, type NodeManifest, type RunManifest } from "./run-manifest.js";
export type { EngineOptions, ExecutorTable } from "./run-options.js";
export {
  acquireRunLease,
  DEFAULT_LEASE_MS,
  newLeaseOwner,
  type HeldLease,
  type LeaseOptions,
} from "../store/run-lease.js";
export { continueRun, newRunId, startRun, type EngineResumeOptions } from "./run-plan.js";
export { toolNodeExecutor } from "./tool-node-executor.js";
export type {
  Escalation,
  ItemCounts,
  ItemRecord,
  NodeRecord,
  NodeStatus,
  Resolution,
  RunLease,
  RunRecord,
  RunStatus,
  StoredRun,
} from "../store/run-state.js";
export {
  applyMutations,
  type ItemPage,
  type ItemPageOptions,
  type LeaseResult,
  type RunMutation,
  type RunStore,
  type RunSummary,
} from "../store/run-store.js";
export { applySelectPath, parseSelectPath, type PathStep } from "../runtime/select-path.js";
export { SqliteRunStore, type SqliteRunStoreOptions } from "../store/sqlite-run-store.js";
export { compileTemplate, renderString, renderValue, type TemplateScope } from "../runtime/template.js";
export { parsePlan, validatePlan, type ValidateOptions, type ValidationReport } from "./validate-plan.js";
export { executeWith } from "./engine-context.js";
export { PostgresRunStore, redactUrl, type PostgresRunStoreOptions } from "../store/postgres-run-store.js";
