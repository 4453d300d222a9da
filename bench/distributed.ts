// Distributed benchmark: a for_each of ITEMS items of 0, 5 and 50 ms simulated I/O, run as Graphile Worker jobs
// by 1, 2 and 4 `deputy worker` processes (two concurrency settings), beside the in-process engine on the same
// plan and one PostgreSQL commit. Prints a table; nothing here is asserted.
// Run: npm run bench:distributed   (ITEMS=10000 by default; SLOW_ITEMS=2000 for the 50 ms cells, which would
// take minutes at 10,000 with one worker; DEPUTY_BENCH_PG_URL uses an existing server instead of starting one)
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { runPlan } from "../dist/index.js";
import { JobDispatcher } from "../dist/distributed/index.js";
import { MemoryRunStore, PostgresRunStore } from "../dist/plan/index.js";

const ITEMS = Number(process.env.ITEMS ?? 10_000);
const SLOW_ITEMS = Number(process.env.SLOW_ITEMS ?? Math.min(ITEMS, 2_000));
const IO_MS = (process.env.IO_MS ?? "0,5,50").split(",").map(Number);
const WORKERS = (process.env.WORKERS ?? "1,2,4").split(",").map(Number);
/** [worker --concurrency, plan max_concurrency]: the plan's limit caps what all workers together run. */
const SETTINGS: [number, number][] = [
  [4, 16],
  [16, 64],
];
const root = new URL("..", import.meta.url).pathname;
const bin = join(root, "bin/deputy.js");

const dir = mkdtempSync(join(tmpdir(), "deputy-bench-dist-"));
chmodSync(dir, 0o755);
const toolsPath = join(dir, "tools.mjs");
writeFileSync(
  toolsPath,
  `export const tools = [
  { name: "list", description: "a list", input: { type: "object", properties: { n: { type: "integer" } } },
    run: ({ n }) => Array.from({ length: n }, (_, i) => ({ i })) },
  { name: "io", description: "simulated I/O", input: { type: "object", properties: { ms: { type: "integer" }, i: { type: "integer" } } },
    run: async ({ ms }) => { if (ms > 0) await new Promise((r) => setTimeout(r, ms)); return 1; } },
];`,
);
const { tools } = (await import(toolsPath)) as { tools: object[] };

function plan(items: number, ms: number, concurrency: number) {
  return {
    name: "bench",
    nodes: [
      { id: "src", tool: "list", args: { n: items }, store_as: "src" },
      {
        id: "each",
        tool: "io",
        depends_on: ["src"],
        args: { ms, i: "{item.i}" },
        store_as: "r_{index}",
        for_each: { source: "{artifacts.src}", max_items: items, max_concurrency: concurrency },
      },
    ],
  };
}

let url = process.env.DEPUTY_BENCH_PG_URL;
const pgDir = join(dir, "pg");
if (!url) {
  url = execFileSync("bash", [join(root, "scripts/postgres.sh"), "start", pgDir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

async function commitLatencyMs(): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("CREATE TABLE IF NOT EXISTS bench_commit (i int)");
  const n = 300;
  const t = performance.now();
  for (let i = 0; i < n; i++) await client.query("INSERT INTO bench_commit VALUES ($1)", [i]);
  const ms = (performance.now() - t) / n;
  await client.end();
  return ms;
}

function startWorkers(count: number, concurrency: number): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(
        process.execPath,
        [bin, "worker", "--store", url!, "--tools", toolsPath, "--concurrency", String(concurrency)],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      return new Promise<ChildProcess>((resolve, reject) => {
        let err = "";
        child.stderr!.on("data", (d: Buffer) => {
          err += d.toString();
          if (err.includes("started")) resolve(child);
        });
        child.on("exit", () => reject(new Error(`worker exited: ${err}`)));
      });
    }),
  );
}

async function stopWorkers(workers: ChildProcess[]) {
  await Promise.all(
    workers.map((w) => {
      const exited = new Promise((r) => w.once("exit", r));
      w.kill("SIGTERM");
      return exited;
    }),
  );
}

async function timed(run: () => Promise<{ status: string }>): Promise<number> {
  const t = performance.now();
  const m = await run();
  if (m.status !== "completed") throw new Error(`run ended ${m.status}`);
  return (performance.now() - t) / 1000;
}

/** Time each concurrency slot spends per item beyond its simulated I/O, µs. */
const overheadUs = (wall: number, items: number, slots: number, ms: number) =>
  Math.max(0, ((wall * slots) / items - ms / 1000) * 1e6);

const commitMs = await commitLatencyMs();
const rows: string[] = [];
const speedups: string[] = [];
for (const ms of IO_MS) {
  const items = ms >= 50 ? SLOW_ITEMS : ITEMS;
  for (const [workerConcurrency, max] of SETTINGS) {
    const inProcess = await timed(() =>
      runPlan(plan(items, ms, max), { tools, store: new MemoryRunStore() }),
    );
    const inProcessPg = await timed(() =>
      runPlan(plan(items, ms, max), { tools, store: new PostgresRunStore(url!) }),
    );
    const base = overheadUs(inProcess, items, max, ms);
    const byWorkers = new Map<number, number>();
    for (const w of WORKERS) {
      const workers = await startWorkers(w, workerConcurrency);
      const store = new PostgresRunStore(url!, { maxConnections: 20 });
      const dispatcher = new JobDispatcher(store);
      try {
        const wall = await timed(() =>
          runPlan(plan(items, ms, max), { tools, store, distributed: dispatcher }),
        );
        byWorkers.set(w, items / wall);
        const slots = Math.min(max, w * workerConcurrency);
        const over = overheadUs(wall, items, slots, ms);
        rows.push(
          `| ${ms} | ${items} | ${w} | ${workerConcurrency} | ${max} | ${wall.toFixed(1)} | ${Math.round(items / wall)} | ` +
            `${Math.round(items / inProcess)} / ${Math.round(items / inProcessPg)} | ${Math.round(over)} | ` +
            `${Math.round(over - base)} | ${(over / 1000 / commitMs).toFixed(1)} |`,
        );
        console.error(rows.at(-1));
      } finally {
        await dispatcher.close();
        await store.close();
        await stopWorkers(workers);
      }
    }
    const one = byWorkers.get(1);
    const four = byWorkers.get(4);
    if (one && four)
      speedups.push(`${ms} ms, worker concurrency ${workerConcurrency}: ${(four / one).toFixed(2)}×`);
  }
}

console.log(`\nOne PostgreSQL commit (single-row INSERT, autocommit): ${(commitMs * 1000).toFixed(0)} µs\n`);
console.log(
  "| I/O ms | items | workers | worker conc. | max_concurrency | wall s | items/s | in-process items/s (memory / PG store) | overhead µs/item/slot | vs in-process µs | in PG commits |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`\nSpeed-up from 1 to 4 workers: ${speedups.join("; ")}`);
if (!process.env.DEPUTY_BENCH_PG_URL)
  execFileSync("bash", [join(root, "scripts/postgres.sh"), "stop", pgDir]);
rmSync(dir, { recursive: true, force: true });
