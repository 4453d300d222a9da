// One engine, one workload, one process: warm up on a tenth of the workload (JIT, first-use costs), then time
// one full run, check its result, and print one JSON line with the wall time and the process's peak RSS.
// Spawned by run.ts; run by hand as: node --import tsx bench/peers/child.ts ENGINE 'WORKLOAD_JSON'
// With `node --cpu-prof`, CPU_PROF_WINDOW=FILE records when the timed run began and ended, so
// profile-summary.ts can leave out the imports and the warm-up.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkOutcome, type Outcome, type Workload } from "./workloads.js";

/** What the child reports (one JSON line on stdout, prefixed with RESULT). */
export interface ChildResult {
  ok: boolean;
  ms?: number;
  /** CPU time (user + system) of the process during the timed run, ms: less disturbed by load than `ms`. */
  cpuMs?: number;
  /** CPU time of the main thread alone, ms (the rest of `cpuMs`: JIT compiler and GC helper threads). */
  mainCpuMs?: number;
  /** Peak resident set size of the whole process (warm-up included), MiB. */
  peakRssMb: number;
  /** RSS after the engine was imported, before any run, MiB. */
  baseRssMb: number;
  error?: string;
}

const [engine, json] = process.argv.slice(2);
const w = JSON.parse(json!) as Workload;
const mod = (await import(`./${engine}.js`)) as {
  runWorkload(w: Workload, dir: string): Promise<() => Outcome>;
};
const baseRssMb = process.memoryUsage().rss / 2 ** 20;
const mb = () => process.resourceUsage().maxRSS / 1024;

const small = (x: Workload): Workload =>
  x.kind === "dag"
    ? {
        ...x,
        width: Math.max(4, Math.ceil(x.width! / 10)),
        n: Math.max(4, Math.ceil(x.width! / 10)) * x.depth!,
      }
    : { ...x, n: Math.max(20, Math.ceil(x.n / 10)) };

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), `peers-${engine}-`));
  dirs.push(d);
  return d;
};
let result: ChildResult;
try {
  const warm = small(w);
  const warmError = checkOutcome(warm, (await mod.runWorkload(warm, fresh()))());
  if (warmError) throw new Error(`warm-up: ${warmError}`);
  const dir = fresh();
  process.stdout.write("START\n"); // the parent's time limit starts here
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = process.threadCpuUsage();
  const outcome = await mod.runWorkload(w, dir);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const main = process.threadCpuUsage(main0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const mainCpuMs = (main.user + main.system) / 1000;
  if (process.env.CPU_PROF_WINDOW) {
    // Microseconds on the monotonic clock V8's profile timestamps use, so the summary can keep only the timed run.
    const now = Number(process.hrtime.bigint() / 1000n);
    writeFileSync(process.env.CPU_PROF_WINDOW, JSON.stringify({ start: now - ms * 1000, end: now }));
  }
  const error = checkOutcome(w, outcome());
  result = { ok: !error, ms, cpuMs, mainCpuMs, peakRssMb: mb(), baseRssMb, ...(error ? { error } : {}) };
} catch (e) {
  result = { ok: false, peakRssMb: mb(), baseRssMb, error: String((e as Error)?.stack ?? e).slice(0, 600) };
}
for (const d of dirs) rmSync(d, { recursive: true, force: true });
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
