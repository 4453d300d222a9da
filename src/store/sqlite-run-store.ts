import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { nodeSqlite } from "./node-sqlite.js";
import { migrateSqlite, sqliteErrorName } from "./sqlite-schema.js";
import type {
  ItemPage,
  ItemPageOptions,
  LeaseResult,
  RunMutation,
  RunStore,
  RunSummary,
} from "./run-store.js";
import type { Spend } from "./run-state.js";
import type { ItemRecord, NodeRecord, RunRecord, StoredRun } from "./run-state.js";
import { RunError } from "../errors/run-error.js";
import { applyMutation, prepareRunStatements, toRunRecord } from "./sqlite-run-rows.js";
import { sqliteTransaction, type SqliteTransaction } from "./sqlite-transaction.js";
import { dataMap, indexMap, setOwn } from "../runtime/own.js";
import { TurnBatcher } from "../runtime/turn-batcher.js";
import type { CacheClearOptions, CacheEntry } from "./cache-entry.js";
import { SqliteCache } from "./sqlite-cache.js";

/** Options of {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /**
   * SQLite `synchronous` mode. `"normal"` (default) with WAL survives a crash or `kill -9` of the process;
   * `"full"` also survives a power cut, at the price of an fsync per commit.
   */
  synchronous?: "normal" | "full";
}

interface Pending {
  runId: string;
  batch: RunMutation[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Durable run store in one SQLite file (WAL), on Node's built-in `node:sqlite` (measured at least as fast as
 * better-sqlite3 in `bench:engine`, with no native build). Concurrent `write` calls made in the same turn of the
 * event loop are committed together in one transaction (group commit), so many in-flight items cost one commit.
 */
export class SqliteRunStore implements RunStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #stmts;
  readonly #transaction: SqliteTransaction;
  readonly #cache: SqliteCache;
  /** Writes of one turn, committed together in one transaction (see {@link TurnBatcher}). */
  readonly #writes = new TurnBatcher<Pending>((queue) => this.#flush(queue));
  #closed = false;
  /** Runs known to exist (created or checked here), so a write checks its run once. */
  readonly #known = new Set<string>();

  constructor(path: string, options: SqliteRunStoreOptions = {}) {
    this.path = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.#db = new (nodeSqlite().DatabaseSync)(path);
    this.#db.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"};
       PRAGMA busy_timeout = 5000;`,
    );
    migrateSqlite(this.#db);
    const db = this.#db;
    this.#stmts = prepareRunStatements(db);
    this.#transaction = sqliteTransaction(db);
    this.#cache = new SqliteCache(db);
  }

  async createRun(run: RunRecord, initial: RunMutation[] = []): Promise<void> {
    this.#assertOpen();
    // (A group commit is synchronous, so no other transaction is open here.)
    const insert = () => {
      this.#stmts.insertRun.run({
        runId: run.runId,
        planName: run.planName,
        fingerprint: run.fingerprint,
        plan: JSON.stringify(run.plan),
        status: run.status,
        createdAt: run.createdAt,
        updatedAt: run.updatedAt,
        options: JSON.stringify(run.options),
        parentRunId: run.parentRunId ?? null,
        rootRunId: run.rootRunId ?? null,
        repairs: run.repairs?.length ? JSON.stringify(run.repairs) : null,
      });
      for (const m of initial) applyMutation(this.#stmts, run.runId, m);
    };
    try {
      if (initial.length) this.#transaction(insert);
      else insert();
      this.#known.add(run.runId);
    } catch (cause) {
      const code = sqliteErrorName(cause);
      if (code.startsWith("SQLITE_CONSTRAINT"))
        throw new RunError("RUN_EXISTS", `Run ${run.runId} already exists in ${this.path}.`, { cause });
      // A lock held by another process, a read-only file: say so, not "already exists".
      throw new RunError(
        "STORE_UNAVAILABLE",
        `Cannot write run ${run.runId} to ${this.path}: ${/BUSY|LOCKED/.test(code) ? "the store is locked by another process" : (cause as Error).message}.`,
        { runId: run.runId, cause },
      );
    }
  }

  write(runId: string, batch: RunMutation[]): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (!this.#known.has(runId)) {
      // Checked once per run and store: a write for a run this store never created is a caller's bug, not rows.
      if (!this.#stmts.getRun.get(runId))
        return Promise.reject(new RunError("RUN_NOT_FOUND", `No run ${runId} in ${this.path}.`, { runId }));
      this.#known.add(runId);
    }
    return new Promise((resolve, reject) => {
      this.#writes.add({ runId, batch, resolve, reject });
    });
  }

  #flush(queue: Pending[]): void {
    try {
      this.#commit(queue);
      for (const p of queue) p.resolve();
    } catch (error) {
      for (const p of queue) p.reject(error);
    }
  }

  #commit(queue: Pending[]): void {
    this.#transaction(() => {
      for (const p of queue) for (const m of p.batch) applyMutation(this.#stmts, p.runId, m);
    });
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    const summary = this.#readSummary(runId);
    if (!summary) return undefined;
    const { run, artifacts, nodes } = summary;
    const items: StoredRun["items"] = dataMap();
    const rows = this.#stmts.items.iterate(runId) as Iterable<{
      node_id: string;
      record: string;
      key: string | null;
      value: string | null;
    }>;
    for (const i of rows) {
      const item = JSON.parse(i.record) as ItemRecord;
      if (!Object.hasOwn(items, i.node_id)) setOwn(items, i.node_id, indexMap());
      items[i.node_id]![item.index] = item;
      if (i.key !== null && i.value !== null && !Object.hasOwn(artifacts, i.key))
        setOwn(artifacts, i.key, JSON.parse(i.value));
    }
    return { run, artifacts, nodes, items };
  }

  async loadSummary(runId: string): Promise<RunSummary | undefined> {
    return this.#readSummary(runId);
  }

  /** The run's record, artifacts and node records: what `load` and `loadSummary` both read. */
  #readSummary(runId: string): RunSummary | undefined {
    this.#assertOpen();
    const row = this.#stmts.getRun.get(runId) as Record<string, string> | undefined;
    if (!row) return undefined;
    // Keys are data (`store_as: "{item.id}"`): null-prototype maps, so no key is found that was not stored.
    const artifacts = dataMap<unknown>();
    for (const a of this.#stmts.artifacts.iterate(runId) as Iterable<{ key: string; value: string }>) {
      setOwn(artifacts, a.key, JSON.parse(a.value));
    }
    const nodes = dataMap<NodeRecord>();
    for (const n of this.#stmts.nodes.iterate(runId) as Iterable<{ node_id: string; record: string }>) {
      setOwn(nodes, n.node_id, JSON.parse(n.record) as NodeRecord);
    }
    return { run: toRunRecord(row), nodes, artifacts };
  }

  async listItems(runId: string, nodeId: string, options: ItemPageOptions = {}): Promise<ItemPage> {
    this.#assertOpen();
    const counts: ItemPage["counts"] = {};
    let all = 0;
    let spend: Spend | undefined;
    const groups = this.#stmts.itemCounts.all(runId, nodeId) as unknown as (Spend & {
      status: ItemRecord["status"];
      n: number;
      spent: number;
    })[];
    for (const c of groups) {
      counts[c.status] = c.n;
      all += c.n;
      if (c.spent === 0) continue;
      spend ??= { calls: 0, tokens: 0, cost: 0, duration: 0 };
      for (const k of ["calls", "tokens", "cost", "duration"] as const) spend[k] += c[k];
    }
    const limit = options.limit ?? 100;
    const offset = options.offset ?? 0;
    const rows = (
      options.status
        ? this.#stmts.itemPageOf.all(runId, nodeId, options.status, limit, offset)
        : this.#stmts.itemPage.all(runId, nodeId, limit, offset)
    ) as { record: string; key: string | null; value: string | null }[];
    return {
      total: options.status ? (counts[options.status] ?? 0) : all,
      counts,
      ...(spend ? { spend } : {}),
      items: rows.map((r) => {
        const record = JSON.parse(r.record) as ItemRecord;
        return r.key !== null && r.value !== null ? { record, value: JSON.parse(r.value) } : { record };
      }),
    };
  }

  async list(options: { limit?: number } = {}): Promise<RunRecord[]> {
    this.#assertOpen();
    return (this.#stmts.list.all(options.limit ?? 1_000_000) as Record<string, string>[]).map(toRunRecord);
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    this.#assertOpen();
    const now = Date.now();
    if (Number(this.#stmts.takeLease.run({ runId, owner, now, expires: now + ttlMs }).changes) === 1) {
      return { acquired: true };
    }
    const row = this.#stmts.getRun.get(runId) as Record<string, string> | undefined;
    if (!row) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in ${this.path}.`, { runId });
    return { acquired: false, holder: toRunRecord(row).lease! };
  }

  async renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    this.#assertOpen();
    const now = Date.now();
    return Number(this.#stmts.renewLease.run({ runId, owner, now, expires: now + ttlMs }).changes) === 1;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    this.#assertOpen();
    this.#stmts.releaseLease.run(runId, owner);
  }

  async prune(before: Date): Promise<number> {
    this.#assertOpen();
    const doomed = `SELECT run_id FROM runs WHERE updated_at < ? AND NOT (lease_owner IS NOT NULL AND lease_expires > ?)`;
    const cutoff = before.toISOString();
    const now = Date.now();
    return this.#transaction(() => {
      for (const table of ["artifacts", "nodes", "items"]) {
        this.#db.prepare(`DELETE FROM ${table} WHERE run_id IN (${doomed})`).run(cutoff, now);
      }
      return Number(
        this.#db.prepare(`DELETE FROM runs WHERE run_id IN (${doomed})`).run(cutoff, now).changes,
      );
    });
  }

  async getCached(key: string, now: number): Promise<CacheEntry | undefined> {
    this.#assertOpen();
    return this.#cache.get(key, now);
  }

  async putCached(entry: CacheEntry): Promise<void> {
    this.#assertOpen();
    this.#cache.put(entry);
  }

  async clearCache(options?: CacheClearOptions): Promise<number> {
    this.#assertOpen();
    return this.#cache.clear(options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Synchronous: the pending writes commit before the file closes.
    void this.#writes.flushNow();
    this.#closed = true;
    this.#db.close();
  }

  #assertOpen() {
    if (this.#closed) throw this.#closedError();
  }

  #closedError(): RunError {
    return new RunError("STORE_CLOSED", `The run store ${this.path} is closed.`);
  }
}
