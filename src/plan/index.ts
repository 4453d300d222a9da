/// <reference types="node" preserve="true" />
/**
 * Execution plans: validate a JSON DAG of nodes of registered node types (the root entry registers tool,
 * delegate and agent), run it with real concurrency, checkpoint every node and item, and resume after a crash
 * or an escalation. The run stores ({@link MemoryRunStore},
 * {@link SqliteRunStore}, {@link PostgresRunStore}) and their record types are here too.
 *
 * The engine's barrel. The `deputy-js/plan` subpath is `src/compose/plan-subpath.ts`: these names plus the run
 * entries composed with the built-in node types (`runPlan`, `resumeRun`, `createHost`), which the engine, knowing
 * no node type, cannot offer itself.
 *
 * @packageDocumentation
 */
export { canonicalJson } from "../runtime/canonical-json.js";
export { planFingerprint } from "./fingerprint.js";
export { MemoryRunStore } from "../store/memory-run-store.js";
export type { AgentResolver, BudgetScope } from "./host-capabilities.js";
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
  type DefinedNodeType,
  type FieldRule,
  type ModelWrites,
  type NodeConsoleView,
  type NodeOf,
  type NodeType,
  type NodeTypeSpec,
  type TemplatedField,
} from "./node-type.js";
export { NodeTypeTable } from "./node-type-table.js";
export type {
  BaseNodeInput,
  NodeInputOf,
  PlanHeaderInput,
  PlanInputOf,
  PlanMetadataInput,
  UntypedPlan,
} from "./plan-input.js";
export { PlanBuilder, type NodeFieldsOf, type NodeMethods, type PlanBuilderOf } from "./plan-builder.js";
export { planJsonSchema } from "./plan-json-schema.js";
export { toolNodeType } from "./tool-node-type.js";
export type { ToolNode } from "./tool-node.js";
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
  RepairChange,
  RepairRecord,
  RepairStatus,
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
export type { CacheClearOptions, CacheEntry } from "../store/cache-entry.js";
export { SqliteRunStore, type SqliteRunStoreOptions } from "../store/sqlite-run-store.js";
export { parsePlan, validatePlan, type ValidateOptions, type ValidationReport } from "./validate-plan.js";
export { PostgresRunStore, type PostgresRunStoreOptions } from "../store/postgres-run-store.js";
/** For node types of your own: render a node field's templates against the unit's scope, as the built-in types do. */
export { renderValue, type TemplateScope } from "../runtime/template.js";
