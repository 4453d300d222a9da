import type { SerializedError } from "../errors/deputy-error.js";
import type { Escalation } from "../records/escalation.js";
import type { RunOptionsRecord } from "./run-options-record.js";

/** Where a node stands. `pending` and `running` never end a run; the rest are final for this attempt. */
export type NodeStatus =
  "pending" | "running" | "ok" | "partial" | "skipped" | "error" | "blocked" | "escalated";

/**
 * How a run ended (or `running` while it goes on). `interrupted`: stopped gracefully (SIGINT/SIGTERM, or the
 * `stop` option) before it finished; `deputy resume` continues it.
 */
export type RunStatus =
  "running" | "completed" | "partial" | "failed" | "escalated" | "cancelled" | "interrupted";

// An escalation (what the store keeps of a paused unit) and what it spends are a proposal's records, declared
// once in records/; the store keeps them as they are.
export type { Escalation, EscalationTool, Resolution } from "../records/escalation.js";
export type { Spend } from "../records/spend.js";

/** The durable record of one for_each item. */
export interface ItemRecord {
  index: number;
  status: "ok" | "error" | "skipped" | "escalated";
  key?: string;
  error?: SerializedError;
  escalation?: Escalation;
  /** Executor-specific facts worth keeping (a delegate's verdict, an agent's ledger). */
  details?: Record<string, unknown>;
}

/** Item counts of a for_each node. `reused` items were already stored and not dispatched again. */
export interface ItemCounts {
  total: number;
  ok: number;
  error: number;
  skipped: number;
  escalated: number;
  reused: number;
}

/** The durable record of one node. */
export interface NodeRecord {
  status: NodeStatus;
  storedKeys: string[];
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  error?: SerializedError;
  escalation?: Escalation;
  items?: ItemCounts;
  details?: Record<string, unknown>;
}

/** The durable header of a run. */
export interface RunRecord {
  runId: string;
  planName: string;
  fingerprint: string;
  /** The plan as given (raw JSON), so a run can be resumed from the store alone. */
  plan: unknown;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  /** How the run was started (tools module path, delegate specs without secrets, …): one typed, versioned record. */
  options: RunOptionsRecord;
  error?: SerializedError;
  /** The run's owner while one holds it (see `RunStore.acquireLease`); absent when nobody does. */
  lease?: RunLease;
  /** For a run made by applying a repair: the run it repairs (its plan delta was approved there). */
  parentRunId?: string;
  /** For a run made by applying a repair: the first run of its lineage (the parent's root, or the parent). */
  rootRunId?: string;
  /** The repairs asked for this run, oldest first (see `repairRun` in `deputy-js/authoring`). */
  repairs?: RepairRecord[];
  /**
   * The sequence number of the last event the run emitted when it last ended (its `run-end`): a resume numbers
   * its events from the next one, so a watcher of both sees none twice and none missing. Absent: none yet.
   */
  eventSeq?: number;
}

/**
 * Where a repair stands. `asking`: recorded before the model is called (a crash leaves it so, and the round is
 * spent); `failed`: the model could not be asked; `invalid`: its delta was still refused after the correction
 * round; `pending`: a valid delta awaits a decision; `approved`: accepted, its child run is being made;
 * `applied`: the child run exists; `rejected`: a person said no.
 */
export type RepairStatus = "asking" | "failed" | "invalid" | "pending" | "approved" | "applied" | "rejected";

/** One change a repair's delta makes: a field of a node, before and after (absent: the field is not set). */
export interface RepairChange {
  nodeId: string;
  field: string;
  before?: unknown;
  after?: unknown;
}

/**
 * One repair of a run: a model-written plan delta that replaces failed nodes by id. It describes itself (the
 * delta, the patched plan, the diff), so the console and the CLI show and apply it without asking the model
 * again or re-reading the parent's plan.
 */
export interface RepairRecord {
  /** Unique within the run: `r1`, `r2`, … by round. */
  id: string;
  /** Which round of the run's lineage this is (1 for the first repair of a root run and its children). */
  round: number;
  status: RepairStatus;
  createdAt: string;
  updatedAt: string;
  /** The model that was asked, as a spec without credentials (`openai=URL,model=NAME`, `scripted=FILE`). */
  model?: string;
  /** The node ids the model was allowed to replace (they ended `error` or `blocked`). */
  eligible: string[];
  /** The delta as checked: `{ nodes: [...] }` (a `pending` repair's is valid). */
  delta?: { nodes: unknown[] };
  /** The plan with the delta applied (a `pending` repair's validates as a whole). */
  plan?: unknown;
  /** The delta's changes, field by field. */
  diff?: RepairChange[];
  /** Why the delta was refused (`invalid`), or why the model could not be asked (`failed`). */
  issues?: { code: string; message: string; nodeId?: string; path?: string }[];
  /** Model requests and tokens spent on this repair. */
  usage?: { calls: number; inputTokens: number; outputTokens: number; totalTokens: number };
  /** Who approved or rejected it (a person's name, when given), and when. */
  decidedBy?: string;
  decidedAt?: string;
  /** Why it was rejected, when the person said. */
  reason?: string;
  /** The run made by applying it (set when approved, before the run exists, so approving twice makes one). */
  childRunId?: string;
}

/** Who owns a run, and until when (ISO times). */
export interface RunLease {
  owner: string;
  /** When the owner last renewed the lease. */
  heartbeatAt: string;
  /** When the lease lapses unless renewed; after it, another process may take the run over. */
  expiresAt: string;
}

/** Everything a store keeps of a run. */
export interface StoredRun {
  run: RunRecord;
  artifacts: Record<string, unknown>;
  nodes: Record<string, NodeRecord>;
  /** Item records by node id, then by index. */
  items: Record<string, Record<number, ItemRecord>>;
}
