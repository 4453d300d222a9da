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
 * This module is also the composition root: it registers the built-in node types (tool, delegate, agent) with
 * the engine, which itself knows no node type (see `docs/architecture.md`, "Node types").
 *
 * @packageDocumentation
 */
import type { AgentNode } from "./agents/agent-node.js";
import { agentNodeType } from "./agents/agent-node-type.js";
import { escalateToAgent } from "./agents/escalate-to-agent.js";
import {
  planDelegation,
  type DelegateToPlanSpec,
  type PlanDelegationOptions,
} from "./agents/delegate-to-plan.js";
import type { DelegateNode } from "./delegate/delegate-node.js";
import { delegateNodeType } from "./delegate/delegate-node-type.js";
import type { EscalationHandler } from "./delegate/host-capabilities.js";
import type { ToolCallDelegate } from "./delegate/protocol.js";
import { AgentDefinitionError } from "./errors/agent-definition-error.js";
import {
  planTools as planToolsOf,
  type PlanToolkit,
  type PlanToolsOptions as AuthoringPlanToolsOptions,
} from "./authoring/plan-tools.js";
import { agentResolver } from "./plan/host-capabilities.js";
import type { ExecutionHost } from "./plan/node-executor.js";
import type { NodeType } from "./plan/node-type.js";
import { PlanBuilder, type PlanBuilderOf } from "./plan/plan-builder.js";
import type { NodeInputOf, PlanHeaderInput, PlanInputOf, UntypedPlan } from "./plan/plan-input.js";
import { NodeTypeTable, type ExecutorTable } from "./plan/node-type-table.js";
import type { RunManifest } from "./plan/run-manifest.js";
import type { EngineOptions } from "./plan/run-options.js";
import { continueRun, startRun } from "./plan/run-plan.js";
import type { RunStore } from "./store/run-store.js";
import type { ToolNode } from "./plan/tool-node.js";
import { toolNodeType } from "./plan/tool-node-type.js";
import type { ToolsInput } from "./tools/to-tools.js";
import { ToolRegistry } from "./tools/tool-registry.js";
import { redactRecord } from "./traces/redact.js";
import type { TraceSink } from "./traces/trace.js";

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

/** What a run is wired with: the tools, delegate backends, agents and policies its nodes use. */
export interface HostOptions<Extra extends NodeType<any> = NodeType<any>> {
  /**
   * The tools the plan may call: a registry, a list of tools/definitions, or a record by name (an AI SDK
   * `ToolSet` fits; its tools are not delegate-safe unless made with `fromAiSdkTools(set, { delegateSafe })`).
   */
  tools: ToolRegistry | ToolsInput;
  /** The delegate backend chain for delegate nodes, first to last. Default: none. */
  delegates?: ToolCallDelegate[];
  /** Where delegate traces go. Default: nowhere. */
  traceSink?: TraceSink;
  /** The host half of the side-effect double key. Default `false`. */
  allowDelegateSideEffects?: boolean;
  /** Agents by name, for agent nodes and `escalate_to`. */
  agents?: Record<string, unknown>;
  /**
   * Node types besides the built-in ones (`tool`, `delegate`, `agent`): a plan may then use their names as
   * `type`. A name already registered is an error. Default: none. See {@link defineNodeType}.
   */
  nodeTypes?: readonly Extra[];
  /** Executors by node type name, replacing a registered type's own (a test double, an instrumented one). */
  executors?: ExecutorTable;
  /**
   * Who decides rejected proposals of delegate nodes with `escalate_to`. Default: the named agent (from
   * `agents`); `false`: nobody, they pause for a person.
   */
  escalation?: EscalationHandler | false;
}

/** Options of {@link runPlan}: what the run is wired with, plus how it goes. */
export interface RunOptions<Extra extends NodeType<any> = NodeType<any>>
  extends HostOptions<Extra>, Omit<EngineOptions, "host" | "nodeTypes"> {}

/** Options of {@link resumeRun}: those of a run, plus the store it is in and the plan to check against it. */
export interface ResumeOptions extends Omit<RunOptions, "runId" | "artifacts" | "store"> {
  store: RunStore;
  /** The plan as it is now; refused when its fingerprint differs from the run's. Default: the stored plan. */
  plan?: unknown;
}

/**
 * Builds the host and node type table a run (or a validation) uses: the composition of the built-in parts,
 * plus the caller's node types and executors.
 */
export function createHost<Extra extends NodeType<any> = never>(
  options: HostOptions<Extra>,
): { host: ExecutionHost; nodeTypes: NodeTypeTable<BuiltInNodeType | Extra> } {
  const tools = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  return {
    host: {
      tools,
      delegates: options.delegates ?? [],
      traceSink: options.traceSink,
      allowDelegateSideEffects: options.allowDelegateSideEffects ?? false,
      agents: agentResolver(options.agents),
      escalation: options.escalation === false ? undefined : (options.escalation ?? escalateToAgent),
      budget: undefined,
    },
    nodeTypes: new NodeTypeTable(
      (options.nodeTypes ? [...builtInNodeTypes, ...options.nodeTypes] : builtInNodeTypes) as readonly (
        BuiltInNodeType | Extra
      )[],
      options.executors,
    ),
  };
}

/**
 * Validates and runs a plan (the JSON object as given) with the built-in node types (and `nodeTypes`).
 * Resolves with the run's manifest whatever the run's status; rejects only when the plan is invalid
 * (`PlanValidationError`, listing every issue) or the store fails.
 *
 * A plan written in TypeScript (an object, or {@link plan}`(…).build()`) is a {@link PlanInput}: a misspelt field
 * is a compile error. A plan only known at run time — `JSON.parse` of a file (`any`), a value typed `unknown` —
 * is taken as it is and validated like any other (see `docs/library.md`, "Typed plans").
 *
 * @example
 * const manifest = await runPlan(JSON.parse(await readFile("plan.json", "utf8")), {
 *   tools: [fetchAlerts, fileTicket],
 *   store: new SqliteRunStore(".deputy/runs.db"),
 * });
 * if (manifest.status === "escalated") console.log(manifest.nodes.triage.escalations);
 */
export function runPlan<Extra extends NodeType<any> = never>(
  plan: NoInfer<PlanInput<Extra>>,
  options: RunOptions<Extra>,
): Promise<RunManifest>;
/** A plan only known at run time: `unknown` or `any` (a parsed file, a model's answer), validated as any other. */
export function runPlan<const P>(plan: UntypedPlan<P>, options: RunOptions): Promise<RunManifest>;
export function runPlan(input: unknown, options: RunOptions): Promise<RunManifest> {
  return startRun(input, { redact: redactRecord, ...options, ...createHost(options) });
}

/**
 * Continues a run from its last checkpoint: nodes and items that completed are not run again, failed and
 * blocked nodes are retried, unfinished for_each nodes go on with the items not yet stored, and escalations
 * that were resolved are applied. A plan whose fingerprint changed is refused.
 */
export function resumeRun(runId: string, options: ResumeOptions): Promise<RunManifest> {
  return continueRun(runId, { redact: redactRecord, ...options, ...createHost(options) });
}

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

/** Options of {@link delegateToPlan}: the plan's wiring (as for {@link runPlan}) and how callers see it. */
export interface DelegateToPlanOptions<Extra extends NodeType<any> = NodeType<any>>
  extends HostOptions<Extra>, Omit<PlanDelegationOptions, "host" | "nodeTypes"> {}

/**
 * Lets an agent delegate to an execution plan: the calling model sees one tool whose parameters are the plan's
 * declared `inputs`; a call checks the arguments like a contract, runs the plan with them (under the call's
 * budget and timeout) and answers with the artifact the plan `returns`. The plan is validated now, against
 * the tools, agents and delegates given here.
 *
 * @example
 * const triage = defineAgent({
 *   name: "TriageAgent",
 *   backend: { provider: "openai", model: "gpt-4o" },
 *   delegateTo: [
 *     delegateToPlan(triageQueuePlan, {
 *       name: "triage_queue",
 *       description: "Classify every open ticket of a queue and summarise the queue",
 *       tools: [listTickets],
 *       agents: { classifier, summarizer },
 *       budget: { maxCalls: 1, maxTokens: 50_000, timeout: 120 },
 *     }),
 *   ],
 *   actions: { run: ({ ask }: { ask: string }) => ask },
 * });
 */
export function delegateToPlan<Extra extends NodeType<any> = never>(
  plan: NoInfer<PlanInput<Extra>>,
  options: DelegateToPlanOptions<Extra>,
): DelegateToPlanSpec;
/** A plan only known at run time: `unknown` or `any` (a parsed file), validated now as any other. */
export function delegateToPlan<const P>(
  plan: UntypedPlan<P>,
  options: DelegateToPlanOptions,
): DelegateToPlanSpec;
export function delegateToPlan(plan: unknown, options: DelegateToPlanOptions): DelegateToPlanSpec {
  if (typeof options !== "object" || options === null || options.tools === undefined) {
    const name = (plan as { name?: unknown } | null)?.name;
    throw new AgentDefinitionError(
      `delegateToPlan(${typeof name === "string" ? name : "…"}) needs options with \`tools\`: the tools the plan's nodes call (and \`agents\`, \`delegates\` for its agent and delegate nodes).`,
    );
  }
  const {
    tools,
    delegates,
    traceSink,
    allowDelegateSideEffects,
    agents,
    nodeTypes,
    executors,
    escalation,
    ...rest
  } = options;
  const composed = createHost({
    tools,
    delegates,
    traceSink,
    allowDelegateSideEffects,
    agents,
    ...(nodeTypes ? { nodeTypes } : {}),
    executors,
    escalation,
  });
  return planDelegation(plan, { ...rest, ...composed });
}

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
