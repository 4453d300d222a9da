import type { SerializedError } from "../errors/deputy-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { AgentResolver, BudgetScope } from "./host-capabilities.js";
import type { BaseNode, ExecutionPlan } from "./plan-schema.js";
import type { Escalation, NodeStatus, Resolution } from "../store/run-state.js";
import type { TemplateScope } from "../runtime/template.js";
import type { ResultCacheHost } from "./result-cache-host.js";

/**
 * What the engine offers every executor: the tools, the agents by name, the budget scope — and whatever else the
 * host configured for its node types, as capabilities the engine does not read. The engine knows no node type:
 * each part that brings one declares the capabilities it reads in its own folder (`DelegateCapabilities` in
 * `delegate/host-capabilities.ts`, `AgentCapabilities` in `agents/host-capabilities.ts`), lists them in
 * `NodeType.capabilities` (validation refuses a host without them, `missing_capability`), and the composition
 * root fills them. The whole shape of deputy's host is one type, `DeputyHost` in `compose/host.ts`.
 */
export interface ExecutionHost {
  tools: ToolRegistry;
  /** Registered agents by name, for the node types that name one. */
  agents: AgentResolver;
  /** The budget this run spends from when an agent delegated to it; none at top level. */
  budget: BudgetScope | undefined;
  /** Where tool nodes with `cache` keep results: set by the engine for each run; none, nothing is cached. */
  resultCache?: ResultCacheHost;
  /** The capabilities of the host's node types, by name (typed where each type declares them). */
  [capability: string]: unknown;
}

/** One unit of work: a node, or one item of a for_each node. */
export interface WorkUnit {
  runId: string;
  nodeId: string;
  itemIndex?: number;
  scope: TemplateScope;
  signal: AbortSignal;
  /** Statuses and errors of the nodes so far (for CEL guards). */
  statuses: Record<string, NodeStatus>;
  errors: Record<string, SerializedError>;
  /** Set when this unit escalated in an earlier attempt and someone resolved it. */
  resolution?: Resolution;
  /** The earlier escalation, when there was one. */
  escalation?: Escalation;
  host: ExecutionHost;
}

/** How a unit ended. `details` is kept in the unit's durable record and shown in the manifest. */
export type UnitOutcome =
  | { status: "ok"; value: unknown; details?: Record<string, unknown> }
  | { status: "error"; error: SerializedError; details?: Record<string, unknown> }
  | {
      status: "escalated";
      escalation: Omit<Escalation, "nodeId" | "item" | "createdAt">;
      details?: Record<string, unknown>;
    }
  | { status: "skipped"; details?: Record<string, unknown> };

/** Validation context offered to node types' and executors' `validate` hooks. */
export interface ValidationContext {
  /** The plan as parsed so far; `undefined` when its header (name, metadata, …) is itself invalid. */
  plan: ExecutionPlan | undefined;
  host: ExecutionHost;
}

/** Runs one node type. The engine owns scheduling, for_each, checkpoints and statuses; executors own the work. */
export interface NodeExecutor<N extends BaseNode = BaseNode> {
  /**
   * Extra checks of this executor, reported with all other validation issues after its node type's own
   * (`NodeType.validate`); for an executor that needs more than its type checks (a swapped-in one).
   */
  validate?(node: N, ctx: ValidationContext): PlanIssue[];
  execute(node: N, unit: WorkUnit): Promise<UnitOutcome>;
  /**
   * Optional: the node compiled once into an object the engine asks per for_each item instead of `execute`
   * (everything that does not depend on the item — the tool looked up, templates compiled — done here, once).
   * Its `run` must behave exactly as `execute` would for the same unit. Make `run` a method shared by every
   * prepared node (a class), not a closure per node: the engine's optimised code keeps its call target.
   * `undefined`: use `execute`.
   */
  prepare?(node: N, host: ExecutionHost): PreparedNode | undefined;
}

/**
 * A node prepared for many units (see {@link NodeExecutor.prepare}). No promise per unit: `run` returns the
 * outcome when it has it at once (synchronous work), or returns `undefined` and calls `later(outcome, unit)`
 * exactly once, from a later turn (never before `run` returns). `run` may throw (an error outcome); `later` must
 * be called however the work ends.
 */
export interface PreparedNode {
  run(unit: WorkUnit, later: (outcome: UnitOutcome, unit: WorkUnit) => void): UnitOutcome | undefined;
}

/**
 * Runs units somewhere else (on workers, `deputy-js/distributed`) instead of in this process. The engine still
 * schedules — each concurrency slot waits on one dispatched unit, so `max_concurrency` and
 * `max_parallel_tasks` hold — and still commits every outcome.
 */
export interface UnitDispatcher {
  /** Runs one unit (on some worker) and resolves with its outcome; never rejects for the unit's own failure. */
  dispatch(node: BaseNode, unit: WorkUnit): Promise<UnitOutcome>;
  /** Called once when a run (or resume) that used this dispatcher ends: drop what it kept for the run. */
  settle?(runId: string): Promise<void>;
}
