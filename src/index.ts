/// <reference types="node" preserve="true" />
/**
 * deputy — delegation in LLM systems.
 *
 * A short tour of the everyday names (each part also has a subpath of its own):
 *
 * - **Plans** (`deputy-js/plan`): a plan is a JSON DAG of `tool`, `delegate` and `agent` nodes. {@link runPlan}
 *   validates and runs one (every issue listed at once, as a {@link PlanValidationError}), checkpointing every
 *   node and item to a {@link RunStore} ({@link SqliteRunStore}, {@link MemoryRunStore}); {@link resumeRun}
 *   continues after a crash or an escalation; {@link RunManifest} says what happened.
 * - **Tools** (`deputy-js/tools`): {@link defineTool} with a zod or JSON Schema input; `delegateSafe` marks what a
 *   delegate may call without the side-effect double key.
 * - **Delegates** (`deputy-js/delegate`): a small model proposes one grammar-constrained tool call, and the
 *   accept gate decides whether it runs. Backends: {@link LocalDelegate} (in-process llama.cpp),
 *   {@link LlamaServerDelegate}, {@link OpenAICompatibleDelegate}, {@link ScriptedDelegate},
 *   {@link DistilledDelegate}. A rejected proposal can escalate: a person decides with
 *   {@link resolveEscalation}, then the run resumes.
 * - **Traces** (`deputy-js/traces`): one record per proposal hop, to a {@link JsonlTraceSink} (redacted, capped,
 *   rotated); {@link readTraces}, {@link traceStats}, {@link tracesToChat}.
 * - **Plans written by a model** (`deputy-js/authoring`): {@link authorPlan} turns an objective into a validated
 *   plan from the allowed tools; {@link planTools} gives an agent plans as tools (`plan_execute`, `plan_status`,
 *   `plan_artifacts`, `plan_resume`, …).
 * - **Agents** (`deputy-js/agents`): {@link defineAgent}, with contracts ({@link delegation}) that others call
 *   through {@link delegateTo} — or through {@link delegateToPlan}, a plan as a tool — under budgets, with
 *   ledgers and `node:diagnostics_channel` events.
 * - **Diagnostics**: every `node:diagnostics_channel` channel is listed in {@link DIAGNOSTICS_CHANNELS} with its
 *   payload ({@link DiagnosticsEvents}, typed listeners with {@link onDiagnostics}); {@link enableOpenTelemetry}
 *   turns runs, nodes, proposals and delegated calls into OpenTelemetry spans.
 * - **Learned delegates** (`deputy-js/distill`): a delegate trained on a node's accepted calls.
 * - **Evaluation** (`deputy-js/eval`): {@link evaluateBackend} scores a backend on BFCL-format cases; scores,
 *   calibration and threshold choice are `deputy-js/confidence`.
 * - **Errors** (`deputy-js/errors`, the classes also here): every class has a stable `code` and an `isInstance`
 *   that works across copies; `deputy-js/errors` also has each class's code union.
 *
 * @example
 * import { defineTool, runPlan, SqliteRunStore } from "deputy-js";
 * const manifest = await runPlan(plan, { tools: [fetchAlerts, fileTicket], store: new SqliteRunStore("runs.db") });
 *
 * This module only re-exports: the composition (the built-in node types registered with the engine, which itself
 * knows no node type; the host; the run entries) lives in `src/compose/` (see `docs/architecture.md`, "Node types").
 *
 * @packageDocumentation
 */
// The composed entries: the built-in node types wired with the engine (src/compose/).
export {
  builtInNodeTypes,
  createDelegateFromSpec,
  createHost,
  defaultDelegateSpecs,
  delegateToPlan,
  plan,
  planTools,
  resumeRun,
  runPlan,
  startPlan,
  startResume,
  type BuiltInNodeType,
  type DelegateToPlanOptions,
  type HostOptions,
  type PlanBuilderOptions,
  type PlanInput,
  type PlanNode,
  type PlanNodeInput,
  type PlanRun,
  type PlanRunEvent,
  type PlanToolsOptions,
  type ResumeOptions,
  type RunOptions,
} from "./compose/index.js";
// The everyday names, from the parts that define them.
export { authorPlan, type AuthorPlanOptions, type AuthorPlanResult } from "./authoring/author-plan.js";
export type { PlanToolkit } from "./authoring/plan-tools.js";
export type { PlanToolRefusal, RunAnswer } from "./authoring/plan-tools-answers.js";
export { MemoryRunStore } from "./store/memory-run-store.js";
export { SqliteRunStore, type SqliteRunStoreOptions } from "./store/sqlite-run-store.js";
export { parsePlan, validatePlan, type ValidationReport } from "./plan/validate-plan.js";
export type { ExecutionPlan } from "./plan/plan-schema.js";
export type {
  BaseNodeInput,
  NodeInputOf,
  PlanInputOf,
  PlanMetadataInput,
  UntypedPlan,
} from "./plan/plan-input.js";
export { PlanBuilder, type NodeFieldsOf, type PlanBuilderOf } from "./plan/plan-builder.js";
export {
  defineNodeType,
  type DefinedNodeType,
  type FieldRule,
  type ModelWrites,
  type NodeConsoleView,
  type NodeOf,
  type NodeType,
  type TemplatedField,
} from "./plan/node-type.js";
export { NodeTypeTable, type ExecutorTable } from "./plan/node-type-table.js";
export { planJsonSchema } from "./plan/plan-json-schema.js";
export type { RunManifest, NodeManifest } from "./plan/run-manifest.js";
export type { RunStore } from "./store/run-store.js";
export type { RunEvent } from "./plan/run-events.js";
export { defineTool, type Tool, type ToolContext, type ToolDefinition } from "./tools/define-tool.js";
export { ToolRegistry } from "./tools/tool-registry.js";
export type { ToolSpec } from "./tools/tool-spec.js";
export type { Proposal, ToolCallDelegate } from "./delegate/protocol.js";
export { ScriptedDelegate } from "./delegate/scripted-delegate.js";
export { LocalDelegate, type LocalDelegateOptions } from "./delegate/backends/local-delegate.js";
export {
  LlamaServerDelegate,
  type LlamaServerDelegateOptions,
} from "./delegate/backends/llama-server-delegate.js";
export {
  OpenAICompatibleDelegate,
  type OpenAICompatibleDelegateOptions,
} from "./delegate/backends/openai-compatible-delegate.js";

export { DistilledDelegate } from "./distill/distilled-delegate.js";
export { resolveEscalation, type EscalationDecision } from "./delegate/escalation/resolve-escalation.js";
export { JsonlTraceSink, type JsonlTraceSinkOptions } from "./traces/jsonl-trace-sink.js";
export { readTraces } from "./traces/read-traces.js";
export { traceStats } from "./traces/trace-stats.js";
export { tracesToChat } from "./traces/trace-export.js";
export type { TraceSink, DelegateTrace } from "./traces/trace.js";
export { defineAgent } from "./agents/define-agent.js";
export { delegation } from "./agents/contract.js";
export { delegateTo } from "./agents/delegate-to.js";
export type { Budget } from "./agents/budget.js";
export { Pricing } from "./agents/pricing.js";
export type { Agent, AgentResult } from "./agents/types.js";
export { evaluateBackend } from "./eval/evaluate-backend.js";
export { loadBfclSuite } from "./eval/bfcl-suite.js";
export {
  AgentDefinitionError,
  BudgetExceededError,
  DelegateBackendError,
  DeputyError,
  DistilledModelError,
  ExpressionError,
  InputFileError,
  InvalidOptionError,
  InvalidResultError,
  LlamaServerError,
  ModelFetchError,
  NodeError,
  PlanValidationError,
  RunError,
  RunLeasedError,
  ToolError,
  type BudgetViolation,
  type PlanIssue,
  type SerializedError,
} from "./errors/index.js";
export {
  CHANNELS,
  DIAGNOSTICS_CHANNELS,
  onDiagnostics,
  enableOpenTelemetry,
  type ChannelName,
  type DiagnosticsEvents,
  type OpenTelemetryBridgeOptions,
} from "./events/index.js";
