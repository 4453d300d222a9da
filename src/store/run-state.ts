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

/** What a person (or an agent) decided about an escalation. */
export type Resolution = (
  | { kind: "call"; call: { name: string; arguments: Record<string, unknown> } }
  | { kind: "value"; value: unknown }
  | { kind: "skip" }
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
  /** The gate's verdict that caused it (`low_confidence`, `declined`, …). */
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
