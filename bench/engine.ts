// Engine benchmark: per-node overhead on a 1,000-node no-op chain, and a 10,000-item for_each at
// max_concurrency 1, 8 and 64, with and without durable SQLite checkpoints, beside baselines measured in the
// same process: a bare Promise pool over the same items, and the two SQLite drivers (node:sqlite, which the
// store uses, and better-sqlite3) committing one row per transaction and 64 rows per transaction.
// Run: npm run bench:engine  (builds, then prints a table; nothing here is asserted). It measures the built
// package (dist/), as users run it, not the TypeScript sources through a loader.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPlan } from "../dist/index.js";
import { MemoryRunStore, SqliteRunStore, type RunStore } from "../dist/plan/index.js";
import { defineTool } from "../dist/tools/index.js";
import { chainPlan, fanPlan as fanPlanOf } from "./engine-plans.js";
import { DRIVERS, driverCommits, type DriverName } from "./sqlite-drivers.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 3);
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const CHAIN = Number(process.env.CHAIN ?? 1_000);
const fanPlan = (concurrency: number) => fanPlanOf(concurrency, ITEMS);

const noop = defineTool({
  name: "noop",
  description: "does nothing",
  input: { type: "object" },
  run: () => 1,
});
const list = defineTool({
  name: "list",
  description: "a list",
  input: { type: "object" },
  run: () => Array.from({ length: ITEMS }, (_, i) => ({ i })),
});

const dir = mkdtempSync(join(tmpdir(), "deputy-bench-"));
let dbCount = 0;
const sqlite = () => new SqliteRunStore(join(dir, `runs-${dbCount++}.db`));

/** Wall time, peak heap growth, and CPU time (user + system: on a shared machine, less noisy than wall time). */
async function time(fn: () => Promise<unknown>): Promise<{ ms: number; heapMb: number; cpuMs: number }> {
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMb: (peak - heap0) / 2 ** 20, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function median(fn: () => Promise<unknown>) {
  // Warm-up: JIT and first-use costs are not what we measure (a service runs many plans).
  for (let w = 0; w < WARMUP; w++) await fn();
  const runs = [];
  for (let r = 0; r < ROUNDS; r++) runs.push(await time(fn));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(runs.length / 2)]!;
}

async function barePool(concurrency: number) {
  const items = Array.from({ length: ITEMS }, (_, i) => ({ i }));
  let next = 0;
  const out: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await Promise.resolve(noop.run(items[i], {} as never));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Medians of several workloads measured in alternation, round by round, so load drift falls on all of them. */
async function sideBySide(fns: (() => Promise<unknown>)[]) {
  for (let w = 0; w < WARMUP; w++) for (const fn of fns) await fn();
  const runs: Awaited<ReturnType<typeof time>>[][] = fns.map(() => []);
  for (let r = 0; r < ROUNDS; r++) for (const [i, fn] of fns.entries()) runs[i]!.push(await time(fn));
  return runs.map((rs) => rs.sort((a, b) => a.ms - b.ms)[Math.floor(rs.length / 2)]!);
}

const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));
const us = (ms: number, n: number) => ((ms * 1000) / n).toFixed(2);

const run =
  (plan: unknown, store: () => RunStore, tools = [noop, list]) =>
  async () => {
    const s = store();
    const m = await runPlan(plan, { tools, store: s });
    if (m.status !== "completed") throw new Error(`bench run ended ${m.status}`);
    await s.close();
  };

{
  const r = await median(run(chainPlan(CHAIN), () => new MemoryRunStore()));
  row(
    `chain of ${CHAIN} no-op nodes`,
    "memory",
    r.ms.toFixed(1),
    `${us(r.ms, CHAIN)} µs/node`,
    us(r.cpuMs, CHAIN),
    r.heapMb.toFixed(1),
  );
  const s = await median(run(chainPlan(CHAIN), sqlite));
  row(
    `chain of ${CHAIN} no-op nodes`,
    "sqlite",
    s.ms.toFixed(1),
    `${us(s.ms, CHAIN)} µs/node`,
    us(s.cpuMs, CHAIN),
    s.heapMb.toFixed(1),
  );
}
const drivers = Object.keys(DRIVERS) as DriverName[];
const driverRows: ({ driver: DriverName; perTx: number } & Awaited<ReturnType<typeof time>>)[] = [];
for (const perTx of [1, 64]) {
  const results = await sideBySide(
    drivers.map((d) => async () => driverCommits(d, dir, `raw-${dbCount++}`, ITEMS, perTx)),
  );
  results.forEach((r, i) => driverRows.push({ driver: drivers[i]!, perTx, ...r }));
}
// The store commits through node:sqlite: its durable for_each is compared with one node:sqlite commit per item.
const commit = driverRows.find((r) => r.driver === "node:sqlite" && r.perTx === 1)!;
for (const c of [1, 8, 64]) {
  const bare = await median(() => barePool(c));
  row(
    `bare Promise pool, ${ITEMS} items`,
    `c=${c}`,
    bare.ms.toFixed(1),
    `${us(bare.ms, ITEMS)} µs/item`,
    us(bare.cpuMs, ITEMS),
    bare.heapMb.toFixed(1),
  );
  const mem = await median(run(fanPlan(c), () => new MemoryRunStore()));
  row(
    `for_each ${ITEMS} items`,
    `c=${c} memory`,
    mem.ms.toFixed(1),
    `${us(mem.ms, ITEMS)} µs/item`,
    us(mem.cpuMs, ITEMS),
    mem.heapMb.toFixed(1),
  );
  const sq = await median(run(fanPlan(c), sqlite));
  row(
    `for_each ${ITEMS} items`,
    `c=${c} sqlite`,
    sq.ms.toFixed(1),
    `${us(sq.ms, ITEMS)} µs/item (${(sq.ms / commit.ms).toFixed(2)}× one commit/item)`,
    us(sq.cpuMs, ITEMS),
    sq.heapMb.toFixed(1),
  );
}
for (const r of driverRows) {
  row(
    r.perTx === 1 ? "one SQLite WAL commit per row" : `SQLite WAL, ${r.perTx} rows per commit`,
    `${r.driver}, ${ITEMS} rows`,
    r.ms.toFixed(1),
    `${us(r.ms, ITEMS)} µs/row`,
    us(r.cpuMs, ITEMS),
    r.heapMb.toFixed(1),
  );
}

const header = ["workload", "variant", "median ms", "per unit", "CPU µs/unit", "peak heap Δ MB"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
console.log(
  `deputy engine benchmark — node ${process.version}, ${WARMUP} warm-up + ${ROUNDS} rounds (median), ${new Date().toISOString().slice(0, 10)}`,
);
console.log(line(header));
console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
for (const r of rows) console.log(line(r));
rmSync(dir, { recursive: true, force: true });
