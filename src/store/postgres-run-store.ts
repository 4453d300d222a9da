import { createRequire } from "node:module";
import type pg from "pg";
import { withTransaction } from "./postgres-transaction.js";
import { RunError } from "../errors/run-error.js";
import { dataMap, indexMap, setOwn } from "../runtime/own.js";
import { TurnBatcher } from "../runtime/turn-batcher.js";
import { migratePostgres } from "./postgres-migrations.js";
import { readRunOptions } from "./run-options-record.js";
import { UNIT_RESULTS_PRUNE } from "./postgres-unit-results.js";
import { applyInOrder, applyWrites, type RunWrite } from "./postgres-mutations.js";
import type { CacheClearOptions, CacheEntry } from "./cache-entry.js";
import { clearCacheRows, getCachedRow, putCachedRow } from "./postgres-cache.js";
import type { ItemRecord, NodeRecord, RunRecord, StoredRun } from "./run-state.js";
import {
  pageItems,
  summarizeRun,
  type ItemPage,
  type ItemPageOptions,
  type LeaseResult,
  type RunMutation,
  type RunStore,
  type RunSummary,
} from "./run-store.js";

/** Options of {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /** Most connections this store opens. Default 10. */
  maxConnections?: number;
}

// pg (and its 30-odd modules) loads when a PostgresRunStore is made, not when deputy-js/plan is imported: most
// programs never open one (issue 22). `require` keeps the constructor synchronous; pg is CommonJS, and its ES
// entry wraps this same module, so the pool is the class deputy-js/distributed's `import pg` sees.
const load = createRequire(import.meta.url);

interface Pending extends RunWrite {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Durable run store in PostgreSQL (schema `deputy`, migrated on first use), shared by processes on many
 * machines. Writes that arrive while a commit is in flight are committed together in the next transaction
 * (group commit, one statement for artifacts, nodes and items: see `postgres-mutations.ts`), so many in-flight
 * items cost one commit and one round trip, as with the SQLite store.
 *
 * @example
 * const store = new PostgresRunStore("postgres://deputy@db.internal/deputy");
 * await runPlan(plan, { tools, store });
 */
export class PostgresRunStore implements RunStore {
  /** The connection URL without its password (for messages). */
  readonly label: string;
  /** @internal The connection pool (the distributed worker shares it). */
  readonly pool: pg.Pool;
  #ready: Promise<void> | undefined;
  /** Writes of one turn, committed in one transaction; one commit at a time (see {@link TurnBatcher}). */
  readonly #writes = new TurnBatcher<Pending>((queue) => this.#flush(queue), { serial: true });
  #closed = false;

  constructor(connectionString: string, options: PostgresRunStoreOptions = {}) {
    this.label = redactUrl(connectionString);
    const { Pool } = load("pg") as typeof pg;
    this.pool = new Pool({ connectionString, max: options.maxConnections ?? 10 });
    // A client that loses its server must not crash the process; the next query on it reports the error.
    this.pool.on("error", () => {});
    this.pool.on("connect", (client) => client.on("error", () => {}));
  }

  /** Applies pending schema migrations (once per store; every method waits for it). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      const client = await this.#connect();
      try {
        await migratePostgres(client);
      } finally {
        client.release();
      }
    })();
    return this.#ready;
  }

  /** Runs known to exist (created here, or checked once): their writes skip the existence check. */
  readonly #known = new Set<string>();

  async createRun(run: RunRecord, initial: RunMutation[] = []): Promise<void> {
    await this.#open();
    const insert = {
      text: `INSERT INTO deputy.runs (run_id, plan_name, fingerprint, plan, status, created_at, updated_at, options,
               parent_run_id, root_run_id, repairs)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      values: [
        run.runId,
        run.planName,
        run.fingerprint,
        JSON.stringify(run.plan),
        run.status,
        run.createdAt,
        run.updatedAt,
        JSON.stringify(run.options),
        run.parentRunId ?? null,
        run.rootRunId ?? null,
        run.repairs?.length ? JSON.stringify(run.repairs) : null,
      ],
    };
    try {
      if (initial.length === 0) await this.pool.query(insert);
      else {
        // The run and its initial state in one transaction: nobody sees the run without it.
        const client = await this.#connect();
        try {
          await withTransaction(client, async (tx) => {
            await tx.query(insert);
            await applyInOrder(tx, [{ runId: run.runId, batch: initial }]);
          });
        } finally {
          client.release();
        }
      }
      this.#known.add(run.runId);
    } catch (cause) {
      if ((cause as { code?: string }).code === "23505") {
        throw new RunError("RUN_EXISTS", `Run ${run.runId} already exists in ${this.label}.`, { cause });
      }
      throw cause;
    }
  }

  async write(runId: string, batch: RunMutation[]): Promise<void> {
    await this.#open();
    // A write for a run this store never had is refused on its own, before it can join (and fail) a group commit.
    if (!this.#known.has(runId)) {
      const { rowCount } = await this.pool.query(`SELECT 1 FROM deputy.runs WHERE run_id = $1`, [runId]);
      if (!rowCount) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
      this.#known.add(runId);
    }
    return new Promise((resolve, reject) => {
      this.#writes.add({ runId, batch, resolve, reject });
    });
  }

  /** Commits one group of writes in one transaction; what arrives meanwhile goes in the next one. */
  async #flush(queue: Pending[]): Promise<void> {
    try {
      await applyWrites(() => this.#connect(), queue);
      for (const p of queue) p.resolve();
    } catch (error) {
      for (const p of queue) p.reject(error);
    }
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    await this.#open();
    const run = await this.pool.query(`SELECT * FROM deputy.runs WHERE run_id = $1`, [runId]);
    if (run.rowCount === 0) return undefined;
    const [artifactRows, nodeRows, itemRows] = await Promise.all([
      this.pool.query(`SELECT key, value FROM deputy.artifacts WHERE run_id = $1`, [runId]),
      this.pool.query(`SELECT node_id, record FROM deputy.nodes WHERE run_id = $1`, [runId]),
      this.pool.query(
        `SELECT node_id, record, key, value FROM deputy.items WHERE run_id = $1 ORDER BY node_id, idx`,
        [runId],
      ),
    ]);
    // Keys are data (`store_as: "{item.id}"`): null-prototype maps, own-key checks and `setOwn`, so a key such as
    // `constructor` is found only when stored, and `__proto__` is a key like any other.
    const artifacts = dataMap<unknown>();
    for (const a of artifactRows.rows) setOwn(artifacts, a.key, a.value);
    const nodes = dataMap<NodeRecord>();
    for (const n of nodeRows.rows) setOwn(nodes, n.node_id, n.record as NodeRecord);
    const items: StoredRun["items"] = dataMap();
    for (const i of itemRows.rows) {
      const item = i.record as ItemRecord;
      if (!Object.hasOwn(items, i.node_id)) setOwn(items, i.node_id, indexMap());
      items[i.node_id]![item.index] = item;
      if (i.key !== null && i.value !== null && !Object.hasOwn(artifacts, i.key))
        setOwn(artifacts, i.key, i.value);
    }
    return { run: toRunRecord(run.rows[0]), artifacts, nodes, items };
  }

  /** The run without its items' values, from one {@link load} (a paged query is the next step for huge runs). */
  async loadSummary(runId: string): Promise<RunSummary | undefined> {
    const stored = await this.load(runId);
    return stored ? summarizeRun(stored) : undefined;
  }

  /** One page of a node's items, with counts by status (see {@link loadSummary} on how it reads). */
  async listItems(runId: string, nodeId: string, options?: ItemPageOptions): Promise<ItemPage> {
    const stored = await this.load(runId);
    if (!stored) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    return pageItems(stored, nodeId, options);
  }

  async list(options: { limit?: number } = {}): Promise<RunRecord[]> {
    await this.#open();
    const { rows } = await this.pool.query(
      `SELECT * FROM deputy.runs ORDER BY created_at DESC, run_id DESC LIMIT $1`,
      [options.limit ?? 1_000_000],
    );
    return rows.map(toRunRecord);
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    await this.#open();
    // The database's clock decides, so owners on machines with skewed clocks agree on who holds a run.
    const taken = await this.pool.query(
      `UPDATE deputy.runs SET lease_owner = $2, lease_heartbeat = clock_timestamp(),
         lease_expires = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE run_id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires <= clock_timestamp())`,
      [runId, owner, ttlMs],
    );
    if (taken.rowCount === 1) return { acquired: true };
    const { rows } = await this.pool.query(`SELECT * FROM deputy.runs WHERE run_id = $1`, [runId]);
    if (rows.length === 0)
      throw new RunError("RUN_NOT_FOUND", `No run ${runId} in ${this.label}.`, { runId });
    const holder = toRunRecord(rows[0]).lease;
    // Released between our update and this read: try again.
    if (!holder) return this.acquireLease(runId, owner, ttlMs);
    return { acquired: false, holder };
  }

  async renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    await this.#open();
    const { rowCount } = await this.pool.query(
      `UPDATE deputy.runs SET lease_heartbeat = clock_timestamp(),
         lease_expires = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE run_id = $1 AND lease_owner = $2`,
      [runId, owner, ttlMs],
    );
    return rowCount === 1;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    await this.#open();
    await this.pool.query(
      `UPDATE deputy.runs SET lease_owner = NULL, lease_heartbeat = NULL, lease_expires = NULL
       WHERE run_id = $1 AND lease_owner = $2`,
      [runId, owner],
    );
  }

  async prune(before: Date): Promise<number> {
    await this.#open();
    // Artifacts, nodes and items go with their run (ON DELETE CASCADE); unit results are not referenced, and are
    // deleted by the statement of their owner (postgres-unit-results.ts).
    const { rows } = await this.pool.query<{ n: string }>(
      `WITH gone AS (
         DELETE FROM deputy.runs WHERE updated_at < $1
           AND NOT (lease_owner IS NOT NULL AND lease_expires > clock_timestamp())
         RETURNING run_id),
       results AS (${UNIT_RESULTS_PRUNE})
       SELECT count(*) AS n FROM gone`,
      [before.toISOString()],
    );
    return Number(rows[0]!.n);
  }

  async getCached(key: string, now: number): Promise<CacheEntry | undefined> {
    await this.#open();
    return getCachedRow(this.pool, key, now);
  }

  async putCached(entry: CacheEntry): Promise<void> {
    await this.#open();
    await putCachedRow(this.pool, entry);
  }

  async clearCache(options?: CacheClearOptions): Promise<number> {
    await this.#open();
    return clearCacheRows(this.pool, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#writes.busy) await new Promise((r) => setTimeout(r, 5));
    await this.pool.end();
  }

  async #open(): Promise<void> {
    if (this.#closed) throw new RunError("STORE_CLOSED", `The run store ${this.label} is closed.`);
    await this.ready();
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (cause) {
      throw new RunError(
        "STORE_UNREACHABLE",
        `Cannot reach the PostgreSQL store ${this.label}: ${(cause as Error).message}`,
        { cause },
      );
    }
  }
}

function toRunRecord(row: Record<string, any>): RunRecord {
  return {
    runId: row.run_id,
    planName: row.plan_name,
    fingerprint: row.fingerprint,
    plan: row.plan,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    options: readRunOptions(row.options),
    ...(row.error ? { error: row.error } : {}),
    ...(row.parent_run_id ? { parentRunId: row.parent_run_id } : {}),
    ...(row.root_run_id ? { rootRunId: row.root_run_id } : {}),
    ...(row.repairs ? { repairs: row.repairs } : {}),
    ...(row.event_seq != null ? { eventSeq: Number(row.event_seq) } : {}),
    ...(row.lease_owner
      ? {
          lease: {
            owner: row.lease_owner,
            heartbeatAt: (row.lease_heartbeat as Date).toISOString(),
            expiresAt: (row.lease_expires as Date).toISOString(),
          },
        }
      : {}),
  };
}

/** A connection URL with its password replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, "$1:***@");
}
