import pg from "pg";
import { makeWorkerUtils } from "graphile-worker";
import type { BaseNode } from "../plan/plan-schema.js";
import type { UnitDispatcher, UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import type { PostgresRunStore } from "../store/postgres-run-store.js";
import { quietLogger } from "./quiet-logger.js";
import { queuePool } from "./queue-pool.js";
import { toPayload, type UnitPayload } from "./unit-payload.js";

/** The Graphile Worker task that runs one unit. */
export const UNIT_TASK = "deputy_unit";
/**
 * The channel a worker notifies when a unit's outcome is stored: `[key, outcome]` as JSON, or `[key]` when the
 * outcome is too large for a notification (8,000 bytes) or was stored by another worker first.
 */
export const UNIT_DONE_CHANNEL = "deputy_unit_done";

/** The notification announcing a unit's outcome (see {@link UNIT_DONE_CHANNEL}). */
export function doneMessage(key: string, outcomeJson?: string): string {
  const full = outcomeJson === undefined ? undefined : `[${JSON.stringify(key)},${outcomeJson}]`;
  return full !== undefined && Buffer.byteLength(full) < 7900 ? full : JSON.stringify([key]);
}

/** Options of {@link JobDispatcher}. */
export interface JobDispatcherOptions {
  /**
   * How often to look for outcomes whose notification was missed (a reconnect), in ms. Default 1000.
   */
  pollMs?: number;
  /** Attempts a job gets when a worker fails it (a shutdown hand-back, a lost database). Default 25. */
  maxAttempts?: number;
}

interface Waiter {
  payload: UnitPayload;
  resolve: (outcome: UnitOutcome) => void;
  since: number;
}

/**
 * Runs a run's units as Graphile Worker jobs, keyed by their idempotency key, and waits for their outcomes
 * (LISTEN/NOTIFY, with a poll as a safety net). A unit whose outcome is already stored (a worker finished it
 * before the previous coordinator died) is not enqueued again; one whose job is still queued or running is
 * waited for, not duplicated.
 *
 * @example
 * const store = new PostgresRunStore(url);
 * const dispatcher = new JobDispatcher(store);
 * await runPlan(plan, { tools, store, distributed: dispatcher });
 * await dispatcher.close();
 */
export class JobDispatcher implements UnitDispatcher {
  readonly #store: PostgresRunStore;
  readonly #pollMs: number;
  readonly #maxAttempts: number;
  readonly #waiting = new Map<string, Waiter>();
  #toEnqueue: Waiter[] = [];
  #toFetch = new Set<string>();
  #enqueuing = false;
  #started: Promise<pg.Pool> | undefined;
  #listener: pg.Client | undefined;
  #poll: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(store: PostgresRunStore, options: JobDispatcherOptions = {}) {
    this.#store = store;
    this.#pollMs = options.pollMs ?? 1000;
    this.#maxAttempts = options.maxAttempts ?? 25;
  }

  async dispatch(node: BaseNode, unit: WorkUnit): Promise<UnitOutcome> {
    await this.#start();
    const payload = toPayload(node, unit);
    return new Promise<UnitOutcome>((resolve) => {
      const onAbort = () => {
        this.#waiting.delete(payload.key);
        resolve({
          status: "error",
          error: { code: "ABORTED", message: "The run stopped waiting for this unit." },
        });
      };
      if (unit.signal.aborted) return onAbort();
      unit.signal.addEventListener("abort", onAbort, { once: true });
      const waiter: Waiter = {
        payload,
        since: Date.now(),
        resolve: (outcome) => {
          unit.signal.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      };
      this.#waiting.set(payload.key, waiter);
      if (this.#toEnqueue.push(waiter) === 1) setImmediate(() => void this.#enqueue());
    });
  }

  /** How many worker pools recorded a heartbeat within `withinMs` (default 5 s): 0 means units will wait. */
  async liveWorkers(withinMs = 5000): Promise<number> {
    await this.#store.ready();
    const { rows } = await this.#store.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM deputy.workers
       WHERE heartbeat_at > clock_timestamp() - $1 * interval '1 millisecond'`,
      [withinMs],
    );
    return rows[0]!.n;
  }

  /**
   * Drops the run's jobs not yet taken (of units the run stopped waiting for). Stored outcomes stay (an audit
   * of which worker ran what) until the run is pruned.
   */
  async settle(runId: string): Promise<void> {
    const prefix = `${runId.replace(/[\\%_]/g, "\\$&")}/%`;
    await this.#store.pool.query(
      `DELETE FROM graphile_worker._private_jobs WHERE key LIKE $1 AND locked_at IS NULL`,
      [prefix],
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    await this.#listener?.end().catch(() => {});
    const queue = await this.#started?.catch(() => undefined);
    await queue?.end();
  }

  #start(): Promise<pg.Pool> {
    this.#started ??= (async () => {
      await this.#store.ready();
      const utils = await makeWorkerUtils({ pgPool: this.#store.pool, logger: quietLogger() });
      await utils.migrate();
      await utils.release();
      await this.#listen();
      this.#poll = setInterval(() => this.#pollOutstanding(), this.#pollMs);
      this.#poll.unref();
      return queuePool(this.#store, 4);
    })();
    return this.#started;
  }

  async #listen(): Promise<void> {
    const client = new pg.Client(this.#store.pool.options);
    client.on("notification", (msg) => this.#onDone(msg.payload));
    client.on("error", () => {
      // Reconnect; the poll covers what was missed meanwhile.
      this.#listener = undefined;
      if (!this.#closed) setTimeout(() => void this.#listen().catch(() => {}), 500).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${UNIT_DONE_CHANNEL}`);
    this.#listener = client;
  }

  /**
   * Enqueues the waiting units in batches, one batch at a time (two overlapping checks could both find a unit
   * unqueued and add it twice): units already done are answered from their stored outcome, units already
   * queued or running are left to their job, the rest become jobs (one `add_jobs` call per batch).
   */
  async #enqueue(): Promise<void> {
    if (this.#enqueuing) return;
    this.#enqueuing = true;
    try {
      while (this.#toEnqueue.length > 0) {
        const batch = this.#toEnqueue;
        this.#toEnqueue = [];
        await this.#enqueueBatch(batch.filter((w) => this.#waiting.get(w.payload.key) === w));
      }
    } finally {
      this.#enqueuing = false;
    }
  }

  /**
   * One statement per batch: answers units whose success is stored, drops stored failures of units that run
   * again (a resume), and adds jobs for units with neither a success nor a job (`graphile_worker.add_jobs`, which
   * wakes the workers).
   */
  async #enqueueBatch(batch: Waiter[]): Promise<void> {
    if (batch.length === 0) return;
    const queue = await this.#start();
    try {
      const { rows } = await queue.query<{ done: [string, UnitOutcome][] }>({
        name: "deputy_enqueue",
        text: ENQUEUE,
        values: [
          batch.map((w) => w.payload.key),
          batch.map((w) => JSON.stringify(w.payload)),
          UNIT_TASK,
          this.#maxAttempts,
        ],
      });
      for (const [key, outcome] of rows[0]!.done) this.#answer(key, outcome);
      for (const w of batch) w.since = Date.now();
    } catch {
      // The database is briefly unreachable: the poll tries these units again.
      for (const w of batch) w.since = Date.now();
    }
  }

  /** A worker stored an outcome: answer its unit from the notification, or fetch the outcome if it is not in it. */
  #onDone(message: string | undefined): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message ?? "");
    } catch {
      return;
    }
    if (!Array.isArray(parsed) || typeof parsed[0] !== "string" || !this.#waiting.has(parsed[0])) return;
    if (parsed.length > 1) this.#answer(parsed[0], parsed[1] as UnitOutcome);
    else this.#fetchSoon(parsed[0]);
  }

  #fetchSoon(key: string): void {
    if (this.#toFetch.add(key).size === 1) setImmediate(() => void this.#fetch());
  }

  async #fetch(): Promise<void> {
    const keys = [...this.#toFetch];
    this.#toFetch = new Set();
    try {
      const queue = await this.#start();
      const { rows } = await queue.query<{ key: string; outcome: UnitOutcome }>(
        `SELECT key, outcome FROM deputy.unit_results WHERE key = ANY($1::text[])`,
        [keys],
      );
      for (const row of rows) this.#answer(row.key, row.outcome);
    } catch {
      // The poll tries again.
    }
  }

  /** Looks for outcomes of units waiting longer than a poll interval; re-enqueues units whose job vanished. */
  #pollOutstanding(): void {
    const cutoff = Date.now() - this.#pollMs;
    const queued = new Set(this.#toEnqueue);
    const stale = [...this.#waiting.values()].filter((w) => w.since < cutoff && !queued.has(w));
    if (stale.length === 0) return;
    // Re-running the enqueue step answers finished units and re-adds any whose job is gone.
    this.#toEnqueue.push(...stale);
    void this.#enqueue();
  }

  #answer(key: string, outcome: UnitOutcome): void {
    const waiter = this.#waiting.get(key);
    if (!waiter) return;
    this.#waiting.delete(key);
    waiter.resolve(outcome);
  }
}

/**
 * The enqueue statement. $1: the units' keys, $2: their payloads (JSON), $3: the task, $4: max attempts. A
 * stored success is final; a stored error or escalation is from an earlier attempt, which a resume runs again
 * (with the escalation's resolution, if any). A unit whose job is still queued or running is left to it.
 */
const ENQUEUE = `
WITH unit AS (
  SELECT u.key, u.payload, r.outcome,
         coalesce(r.outcome->>'status' IN ('ok', 'skipped'), false) AS done,
         EXISTS (SELECT 1 FROM graphile_worker._private_jobs j WHERE j.key = u.key) AS queued
  FROM unnest($1::text[], $2::text[]) AS u(key, payload)
  LEFT JOIN deputy.unit_results r ON r.key = u.key),
fresh AS (SELECT key, payload FROM unit WHERE NOT done AND NOT queued),
stale AS (
  DELETE FROM deputy.unit_results r USING unit
  WHERE r.key = unit.key AND unit.outcome IS NOT NULL AND NOT unit.done AND NOT unit.queued)
SELECT
  CASE WHEN EXISTS (SELECT 1 FROM fresh) THEN (
    SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
      SELECT ROW($3::text, payload::json, NULL, NULL, $4::int, key, NULL, NULL)::graphile_worker.job_spec
      FROM fresh)))
  ELSE 0 END AS added,
  coalesce((SELECT json_agg(json_build_array(key, outcome)) FROM unit WHERE done), '[]') AS done`;
