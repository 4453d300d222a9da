// deputy vs LangGraph.js vs Mastra on the same workloads (see workloads.ts). One child process per engine per
// workload per round (child.ts), engines in a rotating order each round, medians over the rounds, and
// deputy/peer ratios for wall time, CPU time, per-step overhead and peak RSS.
// Run: npm run bench:peers   (builds dist/ first). Environment:
//   ROUNDS=3       rounds (median over them)          QUICK=1   small sizes, 1 round (a smoke run)
//   LIMIT_S=15     a timed run longer than this is killed and reported as "> limit" (not retried)
//   ONCE_S=8       a cell whose first timed run took longer than this is not repeated (marked "1 run": at
//                  that distance the ratio needs no second digit, and the run stays within ~15 minutes)
//   ONLY=fan10000  workload ids or id prefixes, comma-separated   ENGINES=deputy,mastra   engines to run
//   ITEMS, CHAIN, WIDTH, GROWTH=1000,2000,4000   sizes     CPU_PROF=DIR   node --cpu-prof the deputy children into DIR/<workload>/
//   (CPU_PROF_INTERVAL=100 µs between samples)
//   RESULTS_JSON=FILE   also write every raw measurement there
//   MASTRA_VALIDATE_INPUTS=0   Mastra without 1.x's default step-input parsing (an ablation, not the table's setting)
//   BEFORE_DIST=DIR     also run an older build of deputy (its dist/ folder) as the engine "before", side by side
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import type { ChildResult } from "./child.js";
import { stepsOf, workloads, type Workload } from "./workloads.js";

const env = process.env;
const QUICK = env.QUICK === "1";
const ROUNDS = Number(env.ROUNDS ?? (QUICK ? 1 : 3));
const LIMIT_S = Number(env.LIMIT_S ?? 15);
const ONCE_S = Number(env.ONCE_S ?? 8);
const ALL = ["deputy", "before", "langgraph", "mastra", "bare"] as const;
type Engine = (typeof ALL)[number];
const ENGINES = (env.ENGINES?.split(",") ?? ALL)
  .filter((e): e is Engine => ALL.includes(e as Engine))
  .filter((e) => e !== "before" || env.BEFORE_DIST);
const NAMES: Record<Engine, string> = {
  deputy: "deputy",
  before: "deputy (before)",
  langgraph: "LangGraph",
  mastra: "Mastra",
  bare: "bare",
};
const child = fileURLToPath(new URL("./child.ts", import.meta.url));
// Other people rebuild dist/ while this runs: the deputy children import a copy taken now. It lives under
// node_modules/ so the copy resolves deputy's dependencies exactly as dist/ does.
const distCopy = fileURLToPath(
  new URL(`../../node_modules/.cache/bench-peers-dist-${process.pid}`, import.meta.url),
);
cpSync(fileURLToPath(new URL("../../dist", import.meta.url)), distCopy, { recursive: true });
const beforeCopy = `${distCopy}-before`;
if (env.BEFORE_DIST) cpSync(env.BEFORE_DIST, beforeCopy, { recursive: true });
process.on("exit", () => {
  rmSync(distCopy, { recursive: true, force: true });
  rmSync(beforeCopy, { recursive: true, force: true });
});

type Measurement = ChildResult | { ok: false; timedOut: true; error: string };

/** Spawns one child; the limit starts when the child says its timed run started (after import and warm-up). */
function measure(engine: Engine, w: Workload): Promise<Measurement> {
  const args = ["--import", "tsx"];
  const profDir = env.CPU_PROF && engine === "deputy" ? `${env.CPU_PROF}/${w.id.replaceAll("/", "_")}` : "";
  if (profDir) {
    mkdirSync(profDir, { recursive: true });
    args.push(
      "--cpu-prof",
      `--cpu-prof-interval=${env.CPU_PROF_INTERVAL ?? 100}`,
      `--cpu-prof-dir=${profDir}`,
    );
  }
  const proc = spawn(
    process.execPath,
    [...args, child, engine === "before" ? "deputy" : engine, JSON.stringify(w)],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DEPUTY_DIST: engine === "before" ? beforeCopy : distCopy,
        CPU_PROF_WINDOW: profDir && `${profDir}/window.json`,
      },
    },
  );
  let out = "";
  let err = "";
  let limit: NodeJS.Timeout | undefined;
  let timedOut = false;
  const kill = () => {
    timedOut = true;
    proc.kill("SIGKILL");
  };
  const overall = setTimeout(kill, (LIMIT_S * 3 + 60) * 1000);
  proc.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (!limit && out.includes("START\n")) limit = setTimeout(kill, LIMIT_S * 1000);
  });
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => {
    proc.on("close", () => {
      clearTimeout(overall);
      clearTimeout(limit);
      if (timedOut) return resolve({ ok: false, timedOut: true, error: `> ${LIMIT_S} s` });
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (!line) return resolve({ ok: false, peakRssMb: NaN, baseRssMb: NaN, error: err.slice(-600) || out });
      resolve(JSON.parse(line.slice(7)) as ChildResult);
    });
  });
}

const list = workloads(env);
const results = new Map<string, Measurement[]>();
const key = (e: Engine, w: Workload) => `${e} ${w.id}`;
const runsFor = (w: Workload) => ENGINES.filter((e) => e !== "bare" || w.kind === "fan");
const started = Date.now();

for (let round = 0; round < ROUNDS; round++) {
  for (const [wi, w] of list.entries()) {
    const engines = runsFor(w);
    const shift = (round + wi) % engines.length; // rotate who goes first, so drift in the machine's load spreads
    for (const e of [...engines.slice(shift), ...engines.slice(0, shift)]) {
      const past = results.get(key(e, w)) ?? [];
      if (past.some((m) => "timedOut" in m)) continue; // over the limit once: do not wait for it again
      if (past.some((m) => m.ok && m.ms! > ONCE_S * 1000)) continue;
      if (past.some((m) => !m.ok)) continue; // failed its check: the cell is failed whatever comes next
      const m = await measure(e, w);
      results.set(key(e, w), [...past, m]);
      const shown = m.ok
        ? `${m.ms!.toFixed(0)} ms, ${m.peakRssMb.toFixed(0)} MB`
        : `FAILED ${m.error?.split("\n")[0]}`;
      process.stderr.write(`[round ${round + 1}/${ROUNDS}] ${w.id} ${e}: ${shown}\n`);
    }
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Cell {
  ms?: number;
  /** Median CPU time of the timed run (user + system), ms: the whole process, and its main thread alone. */
  cpu?: number;
  mainCpu?: number;
  runs?: number;
  spread?: number;
  rss?: number;
  /** Peak RSS over the RSS right after the imports: what the workload itself cost. */
  delta?: number;
  failed?: string;
}
function cell(e: Engine, w: Workload): Cell | undefined {
  const ms = results.get(key(e, w));
  if (!ms) return undefined;
  const bad = ms.find((m) => !m.ok);
  if (bad) return { failed: "timedOut" in bad ? `> ${LIMIT_S} s` : "FAILED" };
  const times = ms.map((m) => (m as ChildResult).ms!);
  const med = median(times);
  return {
    ms: med,
    runs: times.length,
    spread: times.length > 1 ? (Math.max(...times) - Math.min(...times)) / med : 0,
    cpu: median(ms.map((m) => (m as ChildResult).cpuMs ?? NaN)),
    mainCpu: median(ms.map((m) => (m as ChildResult).mainCpuMs ?? NaN)),
    rss: median(ms.map((m) => (m as ChildResult).peakRssMb)),
    delta: median(ms.map((m) => (m as ChildResult).peakRssMb - (m as ChildResult).baseRssMb)),
  };
}
/** Per-step overhead: wall time over the floor (the bare pool for fan-outs, 0 for no-op chains and DAGs). */
function overhead(c: Cell | undefined, w: Workload): number | undefined {
  if (c?.ms === undefined) return undefined;
  const floor = w.kind === "fan" ? cell("bare", w)?.ms : 0;
  return floor === undefined ? undefined : ((c.ms - floor) * 1000) / stepsOf(w);
}
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b <= 0 ? "–" : (a / b).toFixed(a / b < 0.1 ? 3 : 2);
const peers = ENGINES.filter((e): e is "langgraph" | "mastra" => e === "langgraph" || e === "mastra");

function table(title: string, header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of rows) console.log(line(r));
}

const req = createRequire(import.meta.url);
const versions = [
  `node ${process.version}`,
  ...[
    "@langchain/langgraph",
    "@langchain/core",
    "@langchain/langgraph-checkpoint-sqlite",
    "@mastra/core",
    "@mastra/libsql",
    "better-sqlite3",
  ].map((p) => `${p} ${(req(`${p}/package.json`) as { version: string }).version}`),
];
console.log(
  `deputy vs peers — ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ` +
    `${ROUNDS} round(s), median; limit ${LIMIT_S} s per timed run; whole run ${((Date.now() - started) / 60000).toFixed(1)} min`,
);
console.log(versions.join(", "));

const names = ENGINES.map((e) => NAMES[e]);
const ratioHeads = peers.map((p) => `deputy/${NAMES[p]}`);
const fmt = (c: Cell | undefined, f: (c: Cell) => string) => (!c ? "–" : c.failed ? c.failed : f(c));
table(
  "Wall time, ms (median; ± is (max − min)/median over the rounds)",
  ["workload", ...names, ...ratioHeads],
  list.map((w) => [
    w.id,
    ...ENGINES.map((e) =>
      fmt(cell(e, w), (c) =>
        c.runs! > 1 ? `${c.ms!.toFixed(0)} ±${(c.spread! * 100).toFixed(0)}%` : `${c.ms!.toFixed(0)} (1 run)`,
      ),
    ),
    ...peers.map((p) => ratio(cell("deputy", w)?.ms, cell(p, w)?.ms)),
  ]),
);
table(
  "CPU time of the timed run, ms (median; user + system of the child process, in brackets its main thread alone —" +
    " the rest is V8's compiler and GC threads; less disturbed by a loaded machine than wall time)",
  ["workload", ...names, ...ratioHeads],
  list.map((w) => [
    w.id,
    ...ENGINES.map((e) => fmt(cell(e, w), (c) => `${c.cpu!.toFixed(0)} (${c.mainCpu!.toFixed(0)})`)),
    ...peers.map(
      (p) =>
        `${ratio(cell("deputy", w)?.cpu, cell(p, w)?.cpu)} (${ratio(cell("deputy", w)?.mainCpu, cell(p, w)?.mainCpu)})`,
    ),
  ]),
);
table(
  "Per-step overhead, µs (wall time over the floor — the bare pool for fan-outs, 0 for chain/DAG — per step)",
  ["workload", ...names.filter((n) => n !== "bare"), ...ratioHeads],
  list.map((w) => [
    w.id,
    ...ENGINES.filter((e) => e !== "bare").map((e) =>
      fmt(cell(e, w), (c) => overhead(c, w)?.toFixed(1) ?? "–"),
    ),
    ...peers.map((p) => ratio(overhead(cell("deputy", w), w), overhead(cell(p, w), w))),
  ]),
);
table(
  "Peak RSS of the child process, MiB (median; includes node, tsx and the engine's modules; in brackets the" +
    " growth over the RSS right after the imports, i.e. what warm-up and run added)",
  ["workload", ...names, ...ratioHeads],
  list.map((w) => [
    w.id,
    ...ENGINES.map((e) => fmt(cell(e, w), (c) => `${c.rss!.toFixed(0)} (+${c.delta!.toFixed(0)})`)),
    ...peers.map(
      (p) =>
        `${ratio(cell("deputy", w)?.rss, cell(p, w)?.rss)} (${ratio(cell("deputy", w)?.delta, cell(p, w)?.delta)})`,
    ),
  ]),
);
console.log(
  "\nNotes: concurrency knobs — deputy for_each max_concurrency (a sliding window); LangGraph maxConcurrency in the" +
    " run config (bounds the tasks of the one superstep all Send branches run in); Mastra .foreach concurrency (since" +
    " 1.x a queue with that many workers, a sliding window too; 0.x ran chunks of that size). Durable: deputy commits every item" +
    " (group commit per event-loop turn); LangGraph saves each task's writes and a checkpoint per superstep; Mastra" +
    " persists the whole workflow snapshot (every step's output so far) before and after each step and after each foreach item.",
);
const failures = [...results].flatMap(([k, ms]) =>
  ms.filter((m) => !m.ok && !("timedOut" in m)).map((m) => `${k}: ${m.error?.split("\n")[0]}`),
);
if (failures.length) console.log(`\nFailed checks:\n${[...new Set(failures)].join("\n")}`);
if (env.RESULTS_JSON) writeFileSync(env.RESULTS_JSON, JSON.stringify(Object.fromEntries(results), null, 2));
