import type {
  ItemRecord,
  NodeRecord,
  RepairRecord,
  Resolution,
  RunLease,
  RunRecord,
  RunStatus,
  StoredRun,
} from "./run-state.js";
import type { SerializedError } from "../errors/deputy-error.js";
import type { CacheClearOptions, CacheEntry } from "./cache-entry.js";
import { dataMap, indexMap, setOwn, toDataMap } from "../runtime/own.js";
import type { Spend } from "./run-state.js";

/** One change to a run's durable state. A store applies a batch of them atomically. */
export type RunMutation =
  | { kind: "artifact"; key: string; value: unknown }
  | { kind: "node"; nodeId: string; record: NodeRecord }
  /** An item's record; with `value`, also the artifact `item.key` (one row, so one write per item). */
  | { kind: "item"; nodeId: string; item: ItemRecord; value?: unknown }
  /** The run's status; with `eventSeq`, also the run's last event sequence number (kept when absent). */
  | { kind: "status"; status: RunStatus; updatedAt: string; error?: SerializedError; eventSeq?: number }
  | { kind: "resolution"; nodeId: string; item?: number; resolution: Resolution }
  /** Adds a repair to the run's `repairs`, or replaces the one of the same id. */
  | { kind: "repair"; repair: RepairRecord };

/**
 * Where checkpoints go. Every implementation passes `test/run-store-suite.ts` and `test/cache-store-suite.ts`.
 *
 * `write` returns once the batch is durable; stores may group concurrent batches into one commit (the SQLite
 * store does), so awaiting each write costs about one commit per group, not per batch.
 */
export interface RunStore {
  /**
   * Creates a run (`RUN_EXISTS` when its id is taken), with its lineage (`parentRunId`, `rootRunId`) and, when
   * given, an `initial` batch applied in the same transaction: a repaired run is made with its parent's
   * completed state, so no reader ever sees it without that state (and no resume re-runs what it holds).
   */
  createRun(run: RunRecord, initial?: RunMutation[]): Promise<void>;
  write(runId: string, batch: RunMutation[]): Promise<void>;
  load(runId: string): Promise<StoredRun | undefined>;
  /** Newest first. */
  list(options?: { limit?: number }): Promise<RunRecord[]>;
  /**
   * Takes the run's lease for `owner` until `ttlMs` from now, when the lease is free, lapsed or already
   * `owner`'s; otherwise reports who holds it. Atomic: of two owners racing, exactly one gets it.
   * Throws `RUN_NOT_FOUND` for an unknown run.
   */
  acquireLease(runId: string, owner: string, ttlMs: number): Promise<LeaseResult>;
  /** Extends `owner`'s lease to `ttlMs` from now; `false` when `owner` no longer holds it. */
  renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (a no-op unless `owner` holds it). */
  releaseLease(runId: string, owner: string): Promise<void>;
  /**
   * Deletes runs last updated before `before` (with their artifacts, nodes and items), except runs whose
   * lease is held. Resolves with the number deleted.
   */
  prune(before: Date): Promise<number>;
  /**
   * A run without its items: the header, the node records and the node-level artifacts (not the items' values).
   * What a viewer needs to draw a run of any size; `undefined` when there is no such run.
   */
  loadSummary(runId: string): Promise<RunSummary | undefined>;
  /** One page of a node's items in index order, optionally of one status, with counts by status over all of them. */
  listItems(runId: string, nodeId: string, options?: ItemPageOptions): Promise<ItemPage>;
  /** The cache entry under `key` when it is live at `now` (epoch ms); expired or missing: `undefined`. */
  getCached(key: string, now: number): Promise<CacheEntry | undefined>;
  /** Stores `entry`, replacing any under its key. */
  putCached(entry: CacheEntry): Promise<void>;
  /** Deletes the cache entries `options` selects (all by default); resolves with the number deleted. */
  clearCache(options?: CacheClearOptions): Promise<number>;
  close(): Promise<void>;
}

/** What {@link RunStore.loadSummary} returns. */
export interface RunSummary {
  run: RunRecord;
  nodes: Record<string, NodeRecord>;
  /** Node-level artifacts; the items' values are left out (see {@link RunStore.listItems}). */
  artifacts: Record<string, unknown>;
}

/** Options of {@link RunStore.listItems}. */
export interface ItemPageOptions {
  /** Items to skip, in index order. Default 0. */
  offset?: number;
  /** Items to return at most. Default 100. */
  limit?: number;
  /** Only items of this status. */
  status?: ItemRecord["status"];
}

/** A page of items and the node's item counts by status (over all its stored items, not only the page). */
export interface ItemPage {
  /** Items that match the status filter (all stored items without one). */
  total: number;
  counts: Partial<Record<ItemRecord["status"], number>>;
  /** What all the node's items spent (`details.spend` summed), when any reported it. */
  spend?: Spend;
  items: { record: ItemRecord; value?: unknown }[];
}

/** A run's summary from its whole state: the node-level artifacts, without the values items stored. */
export function summarizeRun(state: StoredRun): RunSummary {
  const itemKeys = new Set<string>();
  for (const items of Object.values(state.items))
    for (const item of Object.values(items)) if (item.key !== undefined) itemKeys.add(item.key);
  const artifacts = dataMap<unknown>();
  for (const key of Object.keys(state.artifacts))
    if (!itemKeys.has(key)) setOwn(artifacts, key, state.artifacts[key]);
  return { run: state.run, nodes: state.nodes, artifacts };
}

/**
 * A deep copy of a run's state, as every store hands one out: a snapshot no later write changes, whose maps
 * keyed by data (artifacts, nodes, items) have no prototype, so a key that names a member of Object.prototype
 * (`constructor`, `__proto__`) is found only when it was stored. (`structuredClone` alone gives ordinary objects.)
 */
export function copyRun<
  S extends { run: RunRecord; artifacts: Record<string, unknown>; nodes: Record<string, NodeRecord> },
>(state: S): S {
  const copy = structuredClone(state);
  copy.artifacts = toDataMap(copy.artifacts);
  copy.nodes = toDataMap(copy.nodes);
  const items = (copy as Partial<StoredRun>).items;
  if (items) {
    const maps = dataMap<Record<number, ItemRecord>>();
    for (const nodeId of Object.keys(items))
      setOwn(maps, nodeId, Object.assign(indexMap<ItemRecord>(), items[nodeId]));
    (copy as Partial<StoredRun>).items = maps;
  }
  return copy;
}

/** Pages items held in memory (shared by stores that keep a copy in memory). */
export function pageItems(state: StoredRun, nodeId: string, options: ItemPageOptions = {}): ItemPage {
  const all = Object.values(state.items[nodeId] ?? {}).sort((a, b) => a.index - b.index);
  const counts: ItemPage["counts"] = {};
  let spend: Spend | undefined;
  for (const item of all) {
    counts[item.status] = (counts[item.status] ?? 0) + 1;
    const s = item.details?.spend as Partial<Spend> | undefined;
    if (!s || typeof s !== "object") continue;
    spend ??= { calls: 0, tokens: 0, cost: 0, duration: 0 };
    for (const k of ["calls", "tokens", "cost", "duration"] as const) spend[k] += s[k] ?? 0;
  }
  const matching = options.status ? all.filter((i) => i.status === options.status) : all;
  const offset = options.offset ?? 0;
  const page = matching.slice(offset, offset + (options.limit ?? 100));
  return {
    total: matching.length,
    counts,
    ...(spend ? { spend } : {}),
    items: page.map((record) =>
      record.key !== undefined && Object.hasOwn(state.artifacts, record.key)
        ? { record, value: state.artifacts[record.key] }
        : { record },
    ),
  };
}

/** The answer of {@link RunStore.acquireLease}. */
export type LeaseResult = { acquired: true } | { acquired: false; holder: RunLease };

/** Applies a batch to an in-memory {@link StoredRun} (shared by stores that keep a copy in memory). */
export function applyMutations(state: StoredRun, batch: RunMutation[]): void {
  for (const m of batch) {
    switch (m.kind) {
      case "artifact":
        setOwn(state.artifacts, m.key, m.value);
        break;
      case "node":
        setOwn(state.nodes, m.nodeId, m.record);
        break;
      case "item":
        // (Safe with any node id: every store and the engine keep `items` as a map without a prototype.)
        (state.items[m.nodeId] ??= indexMap())[m.item.index] = m.item;
        if ("value" in m && m.item.key !== undefined) setOwn(state.artifacts, m.item.key, m.value);
        break;
      case "status":
        state.run = { ...state.run, status: m.status, updatedAt: m.updatedAt, error: m.error };
        if (m.eventSeq !== undefined) state.run.eventSeq = m.eventSeq;
        break;
      case "resolution":
        applyResolution(state, m.nodeId, m.item, m.resolution);
        break;
      case "repair":
        state.run = { ...state.run, repairs: withRepair(state.run.repairs, m.repair) };
        break;
    }
  }
}

/** `repairs` with `repair` added, or put in place of the one with its id (shared by every store). */
export function withRepair(
  repairs: readonly RepairRecord[] | undefined,
  repair: RepairRecord,
): RepairRecord[] {
  const list = [...(repairs ?? [])];
  const at = list.findIndex((r) => r.id === repair.id);
  if (at < 0) list.push(repair);
  else list[at] = repair;
  return list;
}

function applyResolution(state: StoredRun, nodeId: string, item: number | undefined, resolution: Resolution) {
  if (item === undefined) {
    const node = state.nodes[nodeId];
    if (node?.escalation) state.nodes[nodeId] = { ...node, escalation: { ...node.escalation, resolution } };
    return;
  }
  const record = state.items[nodeId]?.[item];
  if (record?.escalation) {
    state.items[nodeId]![item] = { ...record, escalation: { ...record.escalation, resolution } };
  }
}
