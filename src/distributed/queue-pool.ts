import pg from "pg";
import type { PostgresRunStore } from "../store/postgres-run-store.js";

/**
 * A connection pool for a distributed run's queue traffic — enqueuing units, fetching and completing jobs,
 * storing and announcing outcomes — whose commits do not wait for the disk (`synchronous_commit = off`). On a
 * server where a commit's flush takes milliseconds, that flush would otherwise sit on every unit's critical
 * path three or four times.
 *
 * Why no promise is weakened: such a commit is lost only if the PostgreSQL server itself crashes (not a client,
 * not a worker), and then only the last few hundred milliseconds of them, later ones before earlier ones (the
 * write-ahead log is flushed in order). A lost enqueue is enqueued again by the coordinator's poll; a lost lock
 * or outcome leaves the job in the queue, so the unit runs again under the same idempotency key (at least once);
 * a lost completion makes a worker find the stored outcome and not run the unit again. What must never be lost
 * is the item the coordinator commits to the run store — that commit stays synchronous, and flushing it flushes
 * every commit before it, including the outcome it was built from.
 */
export function queuePool(store: PostgresRunStore, max: number): pg.Pool {
  const pool = new pg.Pool({ ...withAsyncCommit(store.pool.options), max });
  // A client that loses its server must not crash the process; the next query on it reports the error.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

const ASYNC_COMMIT = "-c synchronous_commit=off";

/** The session setting goes in the connection's startup `options` (added to any the URL already has). */
function withAsyncCommit(config: pg.PoolConfig): pg.PoolConfig {
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      const given = url.searchParams.get("options");
      url.searchParams.set("options", given ? `${given} ${ASYNC_COMMIT}` : ASYNC_COMMIT);
      return { ...config, connectionString: url.toString() };
    } catch {
      // Not a URL (a socket path, key=value pairs): options given beside it apply unless it has its own.
    }
  }
  return { ...config, options: config.options ? `${config.options} ${ASYNC_COMMIT}` : ASYNC_COMMIT };
}
