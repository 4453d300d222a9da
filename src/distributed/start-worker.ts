import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import { makeWorkerUtils, run, type Runner, type WorkerEvents } from "graphile-worker";
import { DEFAULT_LEASE_MS } from "../store/run-lease.js";
import type { PostgresRunStore } from "../store/postgres-run-store.js";
import { resumeRun, type RunOptions } from "../compose/index.js";

import { JobDispatcher, UNIT_TASK } from "./job-dispatcher.js";
import { queuePool } from "./queue-pool.js";
import { quietLogger } from "./quiet-logger.js";
import { createUnitTask } from "./unit-task.js";
import { WorkerLiveness, type LivenessOptions } from "./worker-liveness.js";

/** Options of {@link startWorker}. */
export interface StartWorkerOptions extends LivenessOptions {
  store: PostgresRunStore;
  /** What units run with: tools, delegates, trace sink, agents (as for `runPlan`). */
  run: Omit<RunOptions, "store" | "distributed" | "lease">;
  /** Units this worker runs at once. Default 8. */
  concurrency?: number;
  /**
   * Take over distributed runs whose coordinator died (lease lapsed), and the lease length this worker holds
   * them with, ms. Default `true`, {@link DEFAULT_LEASE_MS}.
   */
  takeOver?: boolean;
  leaseTtlMs?: number;
  /** How long to wait for running units on `stop()` before their signal aborts and they are handed back, ms. Default 5000. */
  shutdownGraceMs?: number;
  /** Progress lines (worker started, run taken over, jobs unlocked). Default: none. */
  log?: (line: string) => void;
}

/** A running worker. */
export interface DeputyWorker {
  /** Unique per process: `host:pid`. */
  readonly name: string;
  readonly liveness: WorkerLiveness;
  /** Stops taking jobs, lets running units finish (or hands them back after the grace period), releases runs. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped. */
  readonly done: Promise<void>;
}

/**
 * Starts a worker: runs unit jobs (Graphile Worker, LISTEN/NOTIFY wake-ups), heartbeats, unlocks dead
 * workers' jobs, and coordinates distributed runs whose coordinator died.
 */
export async function startWorker(options: StartWorkerOptions): Promise<DeputyWorker> {
  const { store } = options;
  const name = `${hostname()}:${process.pid}`;
  const log = options.log ?? (() => {});
  await store.ready();
  const utils = await makeWorkerUtils({ pgPool: store.pool, logger: quietLogger() });
  await utils.migrate();
  const liveness = new WorkerLiveness(store, utils, options);
  const concurrency = options.concurrency ?? 8;
  // Jobs are fetched, checked, answered and completed on connections that do not wait for the disk (see
  // queuePool); the run store's commits (runs this worker takes over) stay synchronous.
  const queue = queuePool(store, concurrency * 2 + 4);
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  const pools: Promise<void>[] = [];
  const poolIds: string[] = [];
  events.on("pool:create", ({ workerPool }) => {
    poolIds.push(workerPool.id);
    pools.push(liveness.add(workerPool.id));
  });
  const runner: Runner = await run({
    pgPool: queue,
    concurrency,
    taskList: { [UNIT_TASK]: createUnitTask(store, options.run, name, () => poolIds, queue) },
    noHandleSignals: true,
    pollInterval: 1000,
    logger: quietLogger(),
    events,
    gracefulShutdownAbortTimeout: options.shutdownGraceMs ?? 5000,
    // Fetch jobs in batches and complete them in batches: a stored outcome makes a repeat of a completed
    // job harmless (the task sees it and does not run the unit again), so batching costs no safety.
    preset: {
      worker: {
        localQueue: { size: concurrency },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  });
  await Promise.all(pools);
  log(`worker ${name} started (concurrency ${concurrency})`);

  const takeover = options.takeOver === false ? undefined : new RunTakeover(options, name, log);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await takeover?.stop();
      await runner.stop();
      await liveness.stop();
      await utils.release();
      await queue.end();
    })());
  return { name, liveness, stop, done: runner.promise.then(() => stop()) };
}

/** Finds distributed runs whose coordinator's lease lapsed and coordinates them from this worker. */
class RunTakeover {
  readonly #options: StartWorkerOptions;
  readonly #owner: string;
  readonly #log: (line: string) => void;
  readonly #dispatcher: JobDispatcher;
  readonly #mine = new Map<string, Promise<unknown>>();
  readonly #timer: NodeJS.Timeout;
  readonly #abort = new AbortController();

  constructor(options: StartWorkerOptions, name: string, log: (line: string) => void) {
    this.#options = options;
    this.#owner = `${name}:coordinator`;
    this.#log = log;
    this.#dispatcher = new JobDispatcher(options.store);
    const ttl = options.leaseTtlMs ?? DEFAULT_LEASE_MS;
    this.#timer = setInterval(() => void this.#scan().catch(() => {}), Math.max(250, ttl / 4));
  }

  async #scan(): Promise<void> {
    const ttl = this.#options.leaseTtlMs ?? DEFAULT_LEASE_MS;
    // A run with no lease at all is taken only once it is older than a lease: its creator takes the lease
    // a moment after creating it.
    const { rows } = await this.#options.store.pool.query<{ run_id: string }>(
      `SELECT run_id FROM deputy.runs WHERE status = 'running' AND options->>'distributed' = 'true'
         AND (lease_expires <= clock_timestamp() OR (lease_owner IS NULL AND updated_at < $1))`,
      [new Date(Date.now() - ttl).toISOString()],
    );
    for (const { run_id: runId } of rows) {
      if (this.#mine.has(runId) || this.#abort.signal.aborted) continue;
      const resumed = resumeRun(runId, {
        ...this.#options.run,
        store: this.#options.store,
        distributed: this.#dispatcher,
        lease: { owner: this.#owner, ttlMs: this.#options.leaseTtlMs ?? DEFAULT_LEASE_MS },
      }).then(
        (m) => this.#log(`run ${runId} (taken over) ended ${m.status}`),
        (e: unknown) => {
          if ((e as { code?: string }).code !== "RUN_LEASED")
            this.#log(`run ${runId}: ${(e as Error).message}`);
        },
      );
      this.#log(`taking over run ${runId}`);
      this.#mine.set(runId, resumed);
      void resumed.finally(() => this.#mine.delete(runId));
    }
  }

  /** Stops looking; hands the runs it coordinates back by releasing their leases (another worker resumes them). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#abort.abort();
    await Promise.all(
      [...this.#mine.keys()].map((runId) =>
        this.#options.store.releaseLease(runId, this.#owner).catch(() => {}),
      ),
    );
    await this.#dispatcher.close();
  }
}
