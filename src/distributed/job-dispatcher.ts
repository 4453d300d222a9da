import pg from "pg";
import { makeWorkerUtils } from "graphile-worker";
import type { BaseNode } from "../plan/plan-schema.js";
import type { UnitDispatcher, UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import type { PostgresRunStore } from "../store/postgres-run-store.js";
import { enqueueUnitsQuery, unitOutcomesQuery } from "../store/postgres-unit-results.js";
import { TurnBatcher } from "../runtime/turn-batcher.js";
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
  /** Units dispatched in one turn, enqueued in one statement; one statement at a time. */
  readonly #toEnqueue = new TurnBatcher<Waiter>((batch) => this.#enqueueBatch(batch), { serial: true });
  /** Units whose outcome a notification did not carry, fetched together. */
  readonly #toFetch = new TurnBatcher<string>((keys) => this.#fetch(keys));
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
      this.#toEnqueue.add(waiter);
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
  /**
   * One statement per batch (`enqueueUnitsQuery`, from the store that owns the outcomes table): answers units
   * whose success is stored, drops stored failures of units that run again (a resume), and adds jobs for units
   * with neither a success nor a job (`graphile_worker.add_jobs`, which wakes the workers).
   */
  async #enqueueBatch(queued: Waiter[]): Promise<void> {
    // A unit answered or given up on since it was queued is not enqueued.
    const batch = queued.filter((w) => this.#waiting.get(w.payload.key) === w);
    if (batch.length === 0) return;
    const queue = await this.#start();
    try {
      const { rows } = await queue.query<{ done: [string, UnitOutcome][] }>(
        enqueueUnitsQuery(
          batch.map((w) => ({ key: w.payload.key, payloadJson: JSON.stringify(w.payload) })),
          UNIT_TASK,
          this.#maxAttempts,
        ),
      );
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
    this.#toFetch.add(key);
  }

  async #fetch(asked: string[]): Promise<void> {
    const keys = [...new Set(asked)];
    try {
      const queue = await this.#start();
      const { rows } = await queue.query<{ key: string; outcome: UnitOutcome }>(unitOutcomesQuery(keys));
      for (const row of rows) this.#answer(row.key, row.outcome);
    } catch {
      // The poll tries again.
    }
  }

  /** Looks for outcomes of units waiting longer than a poll interval; re-enqueues units whose job vanished. */
  #pollOutstanding(): void {
    const cutoff = Date.now() - this.#pollMs;
    const queued = new Set(this.#toEnqueue.pending);
    const stale = [...this.#waiting.values()].filter((w) => w.since < cutoff && !queued.has(w));
    if (stale.length === 0) return;
    // Re-running the enqueue step answers finished units and re-adds any whose job is gone.
    this.#toEnqueue.add(...stale);
    void this.#toEnqueue.flushNow();
  }

  #answer(key: string, outcome: UnitOutcome): void {
    const waiter = this.#waiting.get(key);
    if (!waiter) return;
    this.#waiting.delete(key);
    waiter.resolve(outcome);
  }
}
