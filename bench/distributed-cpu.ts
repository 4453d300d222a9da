// CPU time of other processes for bench/distributed.ts, read from /proc (Linux; elsewhere it reads 0 and the
// table says n/a).
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";

/** CPU time a process has used so far, ms (0 if it is gone or /proc is missing). */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export const hasProc = existsSync("/proc/self/stat");

/**
 * CPU time of one PostgreSQL server's processes (backends and background processes, as pg_stat_activity lists
 * them), ms. Connections that closed since the last call take their time with them: call it while the
 * measured clients are still connected.
 */
export async function serverCpuMs(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity");
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/** CPU the server used between two {@link serverCpuMs} readings (processes new since the first count from 0). */
export function serverCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Transactions the server committed so far (pg_stat_database, all databases). */
export async function commits(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>("SELECT sum(xact_commit) AS n FROM pg_stat_database");
  return Number(rows[0]!.n);
}

/** Latency of one synchronous commit (a single-row INSERT in autocommit), ms, over `n` commits. */
export async function commitLatencyMs(url: string, n = 300): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("CREATE TABLE IF NOT EXISTS bench_commit (i int)");
  const t = performance.now();
  for (let i = 0; i < n; i++) await client.query("INSERT INTO bench_commit VALUES ($1)", [i]);
  const ms = (performance.now() - t) / n;
  await client.query("DROP TABLE bench_commit");
  await client.end();
  return ms;
}
