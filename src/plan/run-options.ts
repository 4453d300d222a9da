import type { Clock } from "../runtime/clock.js";
import type { ExecutionHost, UnitDispatcher } from "./node-executor.js";
import type { NodeTypeTable } from "./node-type-table.js";
import type { LeaseOptions } from "../store/run-lease.js";
import type { EventSequence, RunEvent } from "./run-events.js";
import type { RunStartFacts } from "../store/run-options-record.js";
import type { RunStore } from "../store/run-store.js";
import type { ValidationReport } from "./validate-plan.js";

export type { ExecutorTable } from "./node-type-table.js";

/**
 * Options of the engine's {@link startRun} and {@link continueRun}: a composed host and node type table (the root
 * entry's `createHost` builds both from everyday options), plus how this run goes.
 */
export interface EngineOptions {
  /** What every executor is offered (tools and capabilities). */
  host: ExecutionHost;
  /** The node types a plan may use, each with its executor; a node of another type fails validation. */
  nodeTypes: NodeTypeTable;
  /**
   * Where checkpoints go. Default: none — the run keeps its state in memory only (no durability, nothing to
   * resume; the manifest is the result). The CLI uses SQLite; pass a `MemoryRunStore` to read the run afterwards.
   */
  store?: RunStore;
  /** Artifacts stored before the first node runs (what `skip_existing` can find, what templates can read). */
  artifacts?: Record<string, unknown>;
  /** Values for the plan's declared `inputs` (`{inputs.x}` in templates). */
  inputs?: Record<string, unknown>;
  /** Aborts the run: in-flight work gets the signal, nothing new starts, the run ends `cancelled`. */
  signal?: AbortSignal;
  /**
   * Stops the run gracefully: nothing new starts (no node, no for_each item), work in flight goes on to its end
   * and is committed, and the run ends `interrupted` (resumable). Abort `signal` too, after a grace period, to
   * cut in-flight work short; the run still ends `interrupted`.
   */
  stop?: AbortSignal;
  /**
   * Scrubs secrets from what the run records besides its artifacts — errors, escalation reasons and proposals,
   * executor details — before they are stored, returned in the manifest or printed. Default: deputy's one
   * redactor (`redactRecord`), whichever entry the program imported.
   */
  redact?: (value: unknown) => unknown;
  /** Called for every run, node, item and escalation event (also published on diagnostics_channel). */
  onEvent?: (event: RunEvent) => void;
  /**
   * Where the run's event numbers come from, for a caller that adds events of its own to the run's stream
   * (compose/'s `startPlan` adds the delegate's proposals). Default: a sequence of this run's own.
   *
   * @internal
   */
  sequence?: EventSequence;
  /** The run's id. Default: a new one (time-ordered, unique). */
  runId?: string;
  /**
   * Runs the plan's units on workers instead of in this process (`new JobDispatcher(postgresStore)` from
   * `deputy-js/distributed`). The run is marked distributed, so a worker takes it over if this process dies.
   */
  distributed?: UnitDispatcher;
  /** How this process owns the run: owner id, lease length, wait or refuse when owned. See {@link LeaseOptions}. */
  lease?: LeaseOptions;
  /**
   * Facts about how the run was started, kept with it in its options record (the CLI stores its flags: the
   * tools module path, delegate specs, the trace file); anything else goes under `extra`.
   */
  meta?: RunStartFacts;
  /**
   * A report from `validatePlan` of this same input with the same host and node types (the CLI validates first,
   * to print every issue before it opens a store): the plan is not validated a second time.
   *
   * @internal
   */
  validated?: ValidationReport;
  /** @internal Deterministic clock and ids for tests. */
  _internal?: { now?: Clock; newRunId?: () => string };
}
