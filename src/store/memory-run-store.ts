import {
  applyMutations,
  copyRun,
  pageItems,
  summarizeRun,
  type ItemPage,
  type ItemPageOptions,
  type LeaseResult,
  type RunMutation,
  type RunStore,
  type RunSummary,
} from "./run-store.js";
import type { RunRecord, StoredRun } from "./run-state.js";
import { RunError } from "../errors/run-error.js";
import { dataMap } from "../runtime/own.js";
import { isCleared, isLive, type CacheClearOptions, type CacheEntry } from "./cache-entry.js";

/** Keeps runs in memory: for tests and for runs that need no durability (`--no-store`). */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();
  readonly #cache = new Map<string, CacheEntry>();
  #closed = false;

  async createRun(run: RunRecord, initial: RunMutation[] = []): Promise<void> {
    this.#assertOpen();
    if (this.#runs.has(run.runId)) throw new RunError("RUN_EXISTS", `Run ${run.runId} already exists.`);
    const state: StoredRun = { run, artifacts: dataMap(), nodes: dataMap(), items: dataMap() };
    applyMutations(state, initial);
    this.#runs.set(run.runId, state);
  }

  async write(runId: string, batch: RunMutation[]): Promise<void> {
    this.#assertOpen();
    applyMutations(this.#get(runId), batch);
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    this.#assertOpen();
    const state = this.#runs.get(runId);
    // A deep copy, so a caller holding it sees a snapshot, as with a durable store.
    return state && copyRun(state);
  }

  async list(options: { limit?: number } = {}): Promise<RunRecord[]> {
    this.#assertOpen();
    return [...this.#runs.values()]
      .map((s) => s.run)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, options.limit ?? Infinity);
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    this.#assertOpen();
    const state = this.#get(runId);
    const lease = state.run.lease;
    if (lease && lease.owner !== owner && Date.parse(lease.expiresAt) > Date.now()) {
      return { acquired: false, holder: { ...lease } };
    }
    state.run = { ...state.run, lease: leaseFor(owner, ttlMs) };
    return { acquired: true };
  }

  async renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    const state = this.#get(runId);
    if (state.run.lease?.owner !== owner) return false;
    state.run = { ...state.run, lease: leaseFor(owner, ttlMs) };
    return true;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    const state = this.#runs.get(runId);
    if (state?.run.lease?.owner === owner) {
      const { lease: _lease, ...run } = state.run;
      state.run = run;
    }
  }

  async prune(before: Date): Promise<number> {
    let deleted = 0;
    for (const [runId, state] of this.#runs) {
      const held = state.run.lease && Date.parse(state.run.lease.expiresAt) > Date.now();
      if (!held && Date.parse(state.run.updatedAt) < before.getTime()) {
        this.#runs.delete(runId);
        deleted++;
      }
    }
    return deleted;
  }

  async loadSummary(runId: string): Promise<RunSummary | undefined> {
    this.#assertOpen();
    const state = this.#runs.get(runId);
    return state ? copyRun(summarizeRun(state)) : undefined;
  }

  async listItems(runId: string, nodeId: string, options?: ItemPageOptions): Promise<ItemPage> {
    this.#assertOpen();
    const state = this.#runs.get(runId);
    if (!state) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    return structuredClone(pageItems(state, nodeId, options));
  }

  async getCached(key: string, now: number): Promise<CacheEntry | undefined> {
    this.#assertOpen();
    const entry = this.#cache.get(key);
    return entry && isLive(entry, now) ? structuredClone(entry) : undefined;
  }

  async putCached(entry: CacheEntry): Promise<void> {
    this.#assertOpen();
    this.#cache.set(entry.key, structuredClone(entry));
  }

  async clearCache(options?: CacheClearOptions): Promise<number> {
    this.#assertOpen();
    let deleted = 0;
    for (const [key, entry] of this.#cache)
      if (isCleared(entry, options)) {
        this.#cache.delete(key);
        deleted++;
      }
    return deleted;
  }

  /** Refuses every later call (`STORE_CLOSED`), like a durable store. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new RunError("STORE_CLOSED", "The in-memory run store is closed.");
  }

  #get(runId: string): StoredRun {
    const state = this.#runs.get(runId);
    if (!state) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    return state;
  }
}

function leaseFor(owner: string, ttlMs: number) {
  const now = Date.now();
  return { owner, heartbeatAt: new Date(now).toISOString(), expiresAt: new Date(now + ttlMs).toISOString() };
}
