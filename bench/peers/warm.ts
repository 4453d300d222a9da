// One engine, one in-memory fan-out, run again and again in one process: what a run costs once V8 has optimised
// everything (the peers table times one cold-ish run after a 1,000-item warm-up; this shows the floor under it).
// Run: node --import tsx bench/peers/warm.ts ENGINE [ITEMS=10000] [CONCURRENCY=8] [RUNS=12]
// (deputy: DEPUTY_DIST=path/to/dist as in child.ts). Prints wall, process CPU and main-thread CPU per run, ms.
const [engine = "deputy", items = "10000", concurrency = "8", runs = "12"] = process.argv.slice(2);
const { runWorkload } = (await import(`./${engine}.js`)) as typeof import("./deputy.js");
const w = {
  id: "warm",
  kind: "fan" as const,
  n: Number(items),
  concurrency: Number(concurrency),
  item: "noop" as const,
  durable: false,
};
for (let r = 0; r < Number(runs); r++) {
  const c0 = process.cpuUsage();
  const m0 = process.threadCpuUsage();
  const t0 = performance.now();
  await runWorkload(w, "/tmp");
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const m = process.threadCpuUsage(m0);
  const f = (x: { user: number; system: number }) => ((x.user + x.system) / 1000).toFixed(1);
  console.log(`run ${r + 1}: wall ${ms.toFixed(1)}  cpu ${f(c)}  main ${f(m)}`);
}
