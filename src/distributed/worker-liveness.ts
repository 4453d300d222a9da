import { hostname } from "node:os";
import type { WorkerUtils } from "graphile-worker";
import pg from "pg";
import type { PostgresRunStore } from "../store/postgres-run-store.js";

/** Timing of worker heartbeats and of the sweep that unlocks dead workers' jobs. */
export interface LivenessOptions {
  /** How often a worker records that it is alive, ms. Default 250. */
  heartbeatMs?: number;
  /**
   * A worker pool with no heartbeat for this long is dead, and the jobs it locked longer ago than this are
   * unlocked (`forceUnlockWorkers`) for other workers to run. Default 1000.
   */
  deadAfterMs?: number;
}

/**
 * Keeps one worker pool's heartbeat in `deputy.workers` and sweeps for dead pools' jobs. Open-source Graphile
 * Worker leaves a crashed worker's jobs locked for hours; this brings them back within about
 * `deadAfterMs + heartbeatMs`.
 */
export class WorkerLiveness {
  readonly #store: PostgresRunStore;
  readonly #utils: WorkerUtils;
  readonly #heartbeatMs: number;
  readonly #deadAfterMs: number;
  readonly #pools = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  #client: Promise<pg.Client> | undefined;
  /** How many dead pools' jobs this process unlocked (for tests and logs). */
  unlocked = 0;

  constructor(store: PostgresRunStore, utils: WorkerUtils, options: LivenessOptions = {}) {
    this.#store = store;
    this.#utils = utils;
    this.#heartbeatMs = options.heartbeatMs ?? 250;
    this.#deadAfterMs = options.deadAfterMs ?? 1000;
  }

  /** Starts beating for a pool (by its Graphile Worker id, the value its jobs are locked by). */
  async add(poolId: string): Promise<void> {
    this.#pools.add(poolId);
    await this.#beat();
    this.#timer ??= setInterval(() => void this.#tick(), this.#heartbeatMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#query(`DELETE FROM deputy.workers WHERE pool_id = ANY($1::text[])`, [[...this.#pools]]).catch(
      () => {},
    );
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  /**
   * Heartbeats go over a connection of their own: on the shared pool, a busy worker's jobs would hold every
   * connection and its heartbeat would wait — and look dead to the others.
   */
  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    this.#client ??= (async () => {
      const client = new pg.Client(this.#store.pool.options);
      client.on("error", () => {
        this.#client = undefined;
      });
      await client.connect();
      return client;
    })();
    const client = this.#client;
    try {
      return await (await client).query<R>(text, values);
    } catch (error) {
      if (this.#client === client) this.#client = undefined;
      void client.then((c) => c.end()).catch(() => {});
      throw error;
    }
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      await this.sweep(true);
    } catch {
      // The database is briefly unreachable: the next tick tries again.
    } finally {
      this.#busy = false;
    }
  }

  async #beat(): Promise<void> {
    await this.#query(`${BEAT} SELECT 1`, [[...this.#pools], hostname(), process.pid]);
  }

  /**
   * Unlocks the jobs of pools that stopped beating, and wakes the workers to take them. With `beat`, this
   * process's heartbeat is recorded in the same statement (one round trip per tick).
   */
  async sweep(beat = false): Promise<string[]> {
    const { rows } = await this.#query<{ locked_by: string }>(
      // A pool whose heartbeat stopped is dead. A pool never seen beating is given longer (a starting worker
      // locks jobs a moment before its first heartbeat lands): 30 × deadAfterMs. This process's own pools are
      // alive (the statement cannot see the heartbeat it writes).
      `${beat ? BEAT : "WITH beat AS (SELECT $2::text, $3::int)"}
       SELECT DISTINCT j.locked_by FROM graphile_worker._private_jobs j
       LEFT JOIN deputy.workers w ON w.pool_id = j.locked_by
       WHERE j.locked_by IS NOT NULL AND NOT (j.locked_by = ANY($1::text[]))
         AND j.locked_at < clock_timestamp() - $4 * interval '1 millisecond'
         AND (w.heartbeat_at < clock_timestamp() - $4 * interval '1 millisecond'
              OR (w.pool_id IS NULL AND j.locked_at < clock_timestamp() - 30 * $4 * interval '1 millisecond'))`,
      [[...this.#pools], hostname(), process.pid, this.#deadAfterMs],
    );
    const dead = rows.map((r) => r.locked_by);
    if (dead.length === 0) return dead;
    await this.#utils.forceUnlockWorkers(dead);
    await this.#query(`SELECT pg_notify('jobs:insert', $1)`, [JSON.stringify({ count: 100 })]);
    this.unlocked += dead.length;
    return dead;
  }
}

/** Records this process's pools' heartbeats ($1: pool ids, $2: host, $3: pid), as a CTE before a SELECT. */
const BEAT = `WITH beat AS (
  INSERT INTO deputy.workers (pool_id, host, pid, heartbeat_at)
  SELECT p, $2, $3, clock_timestamp() FROM unnest($1::text[]) AS p
  ON CONFLICT (pool_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at)`;
