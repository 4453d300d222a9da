import type { ToolCallDelegate } from "../delegate/protocol.js";
import type { TraceSink } from "../delegate/trace.js";
import type { Tool } from "../tools/define-tool.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { NodeExecutor, UnitDispatcher } from "./node-executor.js";
import type { LeaseOptions } from "./run-lease.js";
import type { PlanNode } from "./plan-schema.js";
import type { RunEvent } from "./run-events.js";
import type { RunStore } from "./run-store.js";

/** Options of `runPlan` and `resumeRun`. */
export interface RunOptions {
  /** The tools the plan may call: a registry, or tools/definitions/plain objects. */
  tools: ToolRegistry | Iterable<Tool | object>;
  /** Where checkpoints go. Default: a new in-memory store (no durability; the CLI uses SQLite). */
  store?: RunStore;
  /** The delegate backend chain for delegate nodes, first to last. Default: none. */
  delegates?: ToolCallDelegate[];
  /** Where delegate traces go. Default: nowhere. */
  traceSink?: TraceSink;
  /** The host half of the side-effect double key. Default `false`. */
  allowDelegateSideEffects?: boolean;
  /** Agents by name, for agent nodes and `escalate_to`. */
  agents?: Record<string, unknown>;
  /** Executors by node type, replacing or adding to the built-in ones. */
  executors?: Partial<Record<PlanNode["type"], NodeExecutor<any>>>;
  /** Extra services for custom executors (`ExecutionHost.services`). */
  services?: Record<string, unknown>;
  /** Artifacts stored before the first node runs (what `skip_existing` can find, what templates can read). */
  artifacts?: Record<string, unknown>;
  /** Values for the plan's declared `inputs` (`{inputs.x}` in templates). */
  inputs?: Record<string, unknown>;
  /** Aborts the run: in-flight work gets the signal, nothing new starts, the run ends `cancelled`. */
  signal?: AbortSignal;
  /** Called for every run, node and item event (also published on diagnostics_channel). */
  onEvent?: (event: RunEvent) => void;
  /** The run's id. Default: a new one (time-ordered, unique). */
  runId?: string;
  /**
   * Runs the plan's units on workers instead of in this process (`new JobDispatcher(postgresStore)` from
   * `deputy/distributed`). The run is marked distributed, so a worker takes it over if this process dies.
   */
  distributed?: UnitDispatcher;
  /** How this process owns the run: owner id, lease length, wait or refuse when owned. See {@link LeaseOptions}. */
  lease?: LeaseOptions;
  /** Facts about how the run was started, kept with it (the CLI stores the tools module path). */
  meta?: Record<string, unknown>;
  /** @internal Deterministic clock and ids for tests. */
  _internal?: { now?: () => Date; newRunId?: () => string };
}
