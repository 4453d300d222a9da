// Distributed benchmark: a for_each of ITEMS items of 0, 5 and 50 ms simulated I/O, run as Graphile Worker jobs
// by 1, 2 and 4 `deputy worker` processes at several per-worker concurrencies, beside the in-process engine on
// the same plan and one PostgreSQL commit. Prints a table; nothing here is asserted.
//
// Run: npm run bench:distributed
//   ITEMS=10000        items per cell (the size)
//   IO_MS=0,5,50       simulated I/O per item, ms
//   WORKERS=1,2,4      worker processes
//   CONCURRENCY=4,16   units each worker runs at once (`deputy worker --concurrency`)
//   DEPUTY_BENCH_PG_URL=postgres://…   an existing server instead of a throwaway one
//
// The plan's max_concurrency is 16 × the worker concurrency — four times what four workers run together — so the
// workers' own concurrency is what bounds a cell, up to the plan schema's limit of 64. max_concurrency caps the
// units in flight across all workers: once workers × concurrency reaches it, adding a worker adds nothing.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { runPlan, type ToolDefinition } from "../dist/index.js";
import { JobDispatcher } from "../dist/distributed/index.js";
import { MemoryRunStore, PostgresRunStore } from "../dist/plan/index.js";
import { commitLatencyMs, commits, cpuMs, hasProc, serverCpuMs, serverCpuSince } from "./distributed-cpu.js";

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",").map(Number);
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const IO_MS = list("IO_MS", "0,5,50");
const WORKERS = list("WORKERS", "1,2,4");
const CONCURRENCY = list("CONCURRENCY", "4,16");
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
const { tools } = (await import(toolsPath)) as { tools: ToolDefinition[] };

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

/** Time each concurrency slot spends per item beyond its simulated I/O, ms. */
const overheadMs = (wall: number, items: number, slots: number, ms: number) =>
  Math.max(0, (wall * slots * 1000) / items - ms);

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const load0 = loadavg()[0]!;
const commitMs = await commitLatencyMs(url);
const rows: string[] = [];
const speedups: string[] = [];
const f1 = (n: number) => n.toFixed(1);
for (const ms of IO_MS) {
  for (const c of CONCURRENCY) {
    const max = Math.min(16 * c, 64);
    const memory = await timed(() => runPlan(plan(ITEMS, ms, max), { tools, store: new MemoryRunStore() }));
    const pgStore = new PostgresRunStore(url);
    const inPg = await timed(() => runPlan(plan(ITEMS, ms, max), { tools, store: pgStore }));
    await pgStore.close();
    const base = `${Math.round(ITEMS / memory)} / ${Math.round(ITEMS / inPg)}`;
    const baseOver = `${f1(overheadMs(memory, ITEMS, max, ms))} / ${f1(overheadMs(inPg, ITEMS, max, ms))}`;
    const byWorkers = new Map<number, number>();
    for (const w of WORKERS) {
      const workers = await startWorkers(w, c);
      const store = new PostgresRunStore(url, { maxConnections: 20 });
      const dispatcher = new JobDispatcher(store);
      try {
        const cpu0 = process.cpuUsage();
        const workers0 = workers.map((p) => cpuMs(p.pid!));
        const server0 = await serverCpuMs(admin);
        const commits0 = await commits(admin);
        const wall = await timed(() =>
          runPlan(plan(ITEMS, ms, max), { tools, store, distributed: dispatcher }),
        );
        const server = serverCpuSince(server0, await serverCpuMs(admin));
        const perItem = (await commits(admin)) - commits0;
        const cpu = process.cpuUsage(cpu0);
        const coordinator = (cpu.user + cpu.system) / 1000;
        const workerCpu = workers.reduce((s, p, i) => s + cpuMs(p.pid!) - workers0[i]!, 0);
        byWorkers.set(w, ITEMS / wall);
        const slots = Math.min(max, w * c);
        const over = overheadMs(wall, ITEMS, slots, ms);
        const speedup = byWorkers.get(1) ? `${(ITEMS / wall / byWorkers.get(1)!).toFixed(2)}×` : "";
        const cpuCell = hasProc
          ? `${f1(coordinator / ITEMS)} + ${f1(workerCpu / ITEMS)} + ${f1(server / ITEMS)}`
          : "n/a";
        rows.push(
          `| ${ms} | ${ITEMS} | ${w} | ${c} | ${max} | ${f1(wall)} | ${Math.round(ITEMS / wall)} | ${speedup} | ` +
            `${cpuCell} | ${f1(perItem / ITEMS)} | ${base} | ${f1(over)} | ${baseOver} | ${(over / commitMs).toFixed(2)} |`,
        );
        console.error(rows.at(-1));
      } finally {
        await dispatcher.close();
        await store.close();
        await stopWorkers(workers);
      }
    }
    const one = byWorkers.get(1);
    for (const w of WORKERS.filter((n) => n > 1 && byWorkers.has(n)))
      if (one)
        speedups.push(`${ms} ms, concurrency ${c}, 1→${w} workers: ${(byWorkers.get(w)! / one).toFixed(2)}×`);
  }
}

console.log(
  `\nOne PostgreSQL commit (single-row INSERT, autocommit, synchronous): ${commitMs.toFixed(2)} ms. ` +
    `Load average (1 min) ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.\n`,
);
console.log(
  "| I/O ms | items | workers | worker conc. | max_concurrency | wall s | items/s | speed-up | CPU ms/item (coordinator + workers + PostgreSQL) | PG transactions/item | in-process items/s (memory / PG store) | overhead ms/item/slot | in-process overhead ms/item/slot (memory / PG store) | overhead in sync commits |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`\nSpeed-up from adding workers: ${speedups.join("; ")}`);
await admin.end();
if (!process.env.DEPUTY_BENCH_PG_URL)
  execFileSync("bash", [join(root, "scripts/postgres.sh"), "stop", pgDir]);
rmSync(dir, { recursive: true, force: true });
