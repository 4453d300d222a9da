// Two builds of deputy side by side on the engine workloads of bench/engine.ts (a 1,000-node chain; a
// 10,000-item for_each at c=1/8/64, in memory and durable on SQLite), measured in alternation round by round in
// one process so that load drift on this shared machine falls on both. It answers "did this change cost the
// engine anything?" — run it with the old build's dist/ (e.g. from a `git worktree` at the old commit):
//
//   BEFORE_DIST=/path/to/old/dist npm run bench:engine-compare     (ROUNDS=5 WARMUP=3 ITEMS CHAIN)
//
// Each build is imported through its root entry only (`runPlan`, `MemoryRunStore`, `SqliteRunStore`,
// `defineTool`), which every version since the first exports. Nothing here is asserted.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chainPlan as chainOf, fanPlan as fanPlanOf } from "./engine-plans.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 3);
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const CHAIN = Number(process.env.CHAIN ?? 1_000);
const before = process.env.BEFORE_DIST;
if (!before) {
  console.error("bench:engine-compare: set BEFORE_DIST to the dist/ folder of the build to compare with");
  process.exit(2);
}

interface Build {
  name: string;
  runPlan: (plan: unknown, options: Record<string, unknown>) => Promise<{ status: string }>;
  memory: () => { close(): Promise<void> };
  sqlite: (file: string) => { close(): Promise<void> };
  tools: unknown[];
}

async function load(name: string, dist: string): Promise<Build> {
  const root = await import(pathToFileURL(join(resolve(dist), "index.js")).href);
  const noop = root.defineTool({
    name: "noop",
    description: "does nothing",
    input: { type: "object" },
    run: () => 1,
  });
  const list = root.defineTool({
    name: "list",
    description: "a list",
    input: { type: "object" },
    run: () => Array.from({ length: ITEMS }, (_, i) => ({ i })),
  });
  return {
    name,
    runPlan: root.runPlan,
    memory: () => new root.MemoryRunStore(),
    sqlite: (file) => new root.SqliteRunStore(file),
    tools: [noop, list],
  };
}

const builds = [
  await load("before", before),
  await load("after", new URL("../dist", import.meta.url).pathname),
];
const dir = mkdtempSync(join(tmpdir(), "deputy-bench-compare-"));
let dbCount = 0;

const chainPlan = chainOf(CHAIN);
const fanPlan = (c: number) => fanPlanOf(c, ITEMS);

async function once(b: Build, plan: unknown, durable: boolean): Promise<{ ms: number; cpuMs: number }> {
  const store = durable ? b.sqlite(join(dir, `runs-${dbCount++}.db`)) : b.memory();
  global.gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const m = await b.runPlan(plan, { tools: b.tools, store });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await store.close();
  if (m.status !== "completed") throw new Error(`bench run ended ${m.status}`);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[][] = [];
const workloads: [string, unknown, boolean, number][] = [
  [`chain of ${CHAIN} nodes, memory`, chainPlan, false, CHAIN],
  ...[1, 8, 64].flatMap((c): [string, unknown, boolean, number][] => [
    [`for_each ${ITEMS}, c=${c}, memory`, fanPlan(c), false, ITEMS],
    [`for_each ${ITEMS}, c=${c}, sqlite`, fanPlan(c), true, ITEMS],
  ]),
];
const load0 = loadavg()[0]!.toFixed(1);
for (const [label, plan, durable, units] of workloads) {
  for (let w = 0; w < WARMUP; w++) for (const b of builds) await once(b, plan, durable);
  const ms: number[][] = builds.map(() => []);
  const cpu: number[][] = builds.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which build goes first, so neither always runs on a warmer process.
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const t = await once(builds[i]!, plan, durable);
      ms[i]!.push(t.ms);
      cpu[i]!.push(t.cpuMs);
    }
  }
  const per = (x: number) => ((x * 1000) / units).toFixed(2);
  const [b, a] = [0, 1].map((i) => ({ ms: med(ms[i]!), cpu: med(cpu[i]!) }));
  rows.push([
    label,
    `${per(b!.ms)} / ${per(b!.cpu)}`,
    `${per(a!.ms)} / ${per(a!.cpu)}`,
    `${(a!.ms / b!.ms).toFixed(2)}× / ${(a!.cpu / b!.cpu).toFixed(2)}×`,
  ]);
}
rmSync(dir, { recursive: true, force: true });
const header = ["workload", "before µs/unit (wall / CPU)", "after µs/unit (wall / CPU)", "after ÷ before"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
console.log(
  `deputy engine, two builds side by side — node ${process.version}, ${WARMUP} warm-up + ${ROUNDS} rounds (median), load ${load0} → ${loadavg()[0]!.toFixed(1)}, ${new Date().toISOString().slice(0, 16)}Z`,
);
console.log(line(header));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const r of rows) console.log(line(r));
