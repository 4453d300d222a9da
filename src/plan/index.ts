/**
 * Execution plans: validate a JSON DAG of tool, delegate and agent nodes, run it with real concurrency,
 * checkpoint every node and item, and resume after a crash or an escalation. {@link startRun} and
 * {@link continueRun} are the engine's own entries, for a host and executors composed by hand; the root entry's
 * `runPlan` and `resumeRun` compose the built-in ones. The run stores ({@link MemoryRunStore},
 * {@link SqliteRunStore}, {@link PostgresRunStore}) and their record types are here too.
 *
 * @packageDocumentation
 */
export { canonicalJson } from "../runtime/canonical-json.js";
export { planFingerprint } from "./fingerprint.js";
export { MemoryRunStore } from "../store/memory-run-store.js";
export type {
  AgentResolver,
  BudgetScope,
  EscalationAnswer,
  EscalationHandler,
  EscalationRequest,
  ProposedCall,
} from "./host-capabilities.js";
export type {
  ExecutionHost,
  NodeExecutor,
  UnitDispatcher,
  UnitOutcome,
  ValidationContext,
  WorkUnit,
} from "./node-executor.js";
export type {
  AgentNode,
  DelegateNode,
  ExecutionPlan,
  ForEach,
  PlanMetadata,
  PlanNode,
  RetryPolicy,
  ToolNode,
} from "./plan-schema.js";
export { nodeChannel, runChannel, type RunEvent } from "./run-events.js";
export type { NodeManifest, RunManifest } from "./run-manifest.js";
export type { EngineOptions, ExecutorTable } from "./run-options.js";
export { continueRun, startRun, type EngineResumeOptions } from "./run-plan.js";
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
export type {
  ItemPage,
  ItemPageOptions,
  LeaseResult,
  RunMutation,
  RunStore,
  RunSummary,
} from "../store/run-store.js";
export { SqliteRunStore, type SqliteRunStoreOptions } from "../store/sqlite-run-store.js";
export { parsePlan, validatePlan, type ValidateOptions, type ValidationReport } from "./validate-plan.js";
export { PostgresRunStore, type PostgresRunStoreOptions } from "../store/postgres-run-store.js";
