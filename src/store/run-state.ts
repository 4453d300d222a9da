import type { SerializedError } from "../errors/deputy-error.js";
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

/**
 * What a person (or an agent) decided about an escalation: a delegate's escalation is decided by `call`, `value`
 * or `skip`; an approval escalation (`Escalation.kind: "approval"`) by `approve` (run the call shown) or `reject`
 * (never run it; the unit fails with `TOOL_CALL_REJECTED` and the reason).
 */
export type Resolution = (
  | { kind: "call"; call: { name: string; arguments: Record<string, unknown> } }
  | { kind: "value"; value: unknown }
  | { kind: "skip" }
  | { kind: "approve" }
  | { kind: "reject"; reason?: string }
) & {
  /** Who decided: the name a person gave (`deputy resolve --by`, the console). Absent: an unnamed person. */
  by?: string;
};

/**
 * A node or item paused for a decision. It describes itself: what the delegate was asked (`instruction`,
 * `facts`, `tools`, as rendered for this node or item) is kept with it, so the person deciding (the console, the
 * CLI) and the learner (`deputy distill --store`) read it from here, never by rendering the plan again.
 * Escalations stored before these fields existed have none of them; readers show what they can without.
 */
export interface Escalation {
  nodeId: string;
  item?: number;
  /**
   * What it waits for. Absent: a decision about a delegate's proposal (`call`, `value` or `skip`). `approval`: a
   * person's yes or no to the exact call in {@link Escalation.call}, which requires approval (its tool's
   * `needsApproval`, a trusted MCP server's `destructiveHint`, or the tool node's `require_approval`).
   */
  kind?: "approval";
  /** For an approval: the call that waits, as it will run (arguments redacted like the rest of the record). */
  call?: { name: string; arguments: Record<string, unknown> };
  /** The gate's verdict that caused it (`low_confidence`, `declined`, …; `approval_required` for an approval). */
  verdict: string;
  reason: string;
  proposal?: unknown;
  createdAt: string;
  resolution?: Resolution;
  /** The instruction the delegate was given, rendered (secrets redacted like the rest of the record). */
  instruction?: string;
  /** The facts the delegate was given, rendered (redacted like the rest of the record). */
  facts?: Record<string, unknown>;
  /** The candidate tools as the delegate saw them, with the schema a decision's call must fit. */
  tools?: EscalationTool[];
  /** The node's `min_confidence`, when it set one. */
  minConfidence?: number;
  /** The node's `allow_side_effects`. */
  allowSideEffects?: boolean;
}

/**
 * A candidate tool as an escalation keeps it (the delegate's `ToolSpec`). The run's redactor sees the whole
 * record, so the schema of a property with a secret-looking name (`password`) is stored redacted, as in traces.
 */
export interface EscalationTool {
  name: string;
  description: string;
  parameters: unknown;
  /** Argument names whose values are redacted wherever they are shown. */
  sensitive?: readonly string[];
}

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

/** Calls, tokens, USD and seconds spent. */
export interface Spend {
  calls: number;
  tokens: number;
  cost: number;
  duration: number;
}
