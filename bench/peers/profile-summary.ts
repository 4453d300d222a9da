// Summarises a deputy child's CPU profile (CPU_PROF=DIR npm run bench:peers runs the deputy children under
// `node --cpu-prof`): the functions and files with the most self time, counting only the samples taken during
// the timed run when the child left a window.json beside the profile. Each sample counts once: weighting samples
// by their time delta would charge the time the process waited for a core (a loaded machine) to whichever
// function ran next.
// Run: node --import tsx bench/peers/profile-summary.ts DIR/<workload> [TOP=25]
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const [dir, topArg] = process.argv.slice(2);
// The main thread's profile is the big one (tsx's loader thread writes a small second one).
const file = readdirSync(dir!)
  .filter((f) => f.endsWith(".cpuprofile"))
  .map((f) => join(dir!, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
};
const windowFile = join(dir!, "window.json");
const window = existsSync(windowFile)
  ? (JSON.parse(readFileSync(windowFile, "utf8")) as { start: number; end: number })
  : { start: -Infinity, end: Infinity };

const self = new Map<number, number>();
let t = profile.startTime;
profile.samples.forEach((id, k) => {
  const dt = profile.timeDeltas[k] ?? 0;
  t += dt;
  if (t >= window.start && t <= window.end) self.set(id, (self.get(id) ?? 0) + 1);
});
const byFn = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const n = self.get(node.id) ?? 0;
  if (!n) continue;
  total += n;
  const url = node.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
  const short = url.replace(/^.*node_modules\//, "nm/");
  const fn = `${node.callFrame.functionName || "(anonymous)"}  ${short}:${node.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + n);
  const where = short === "" ? node.callFrame.functionName : short;
  byFile.set(where, (byFile.get(where) ?? 0) + n);
}
const top = Number(topArg ?? 25);
const pct = (n: number) => `${((n / total) * 100).toFixed(1).padStart(5)}%`;
const ms = (n: number) => `${String(n).padStart(6)} samples`;
console.log(
  `${file}: ${total} samples in the timed run (${((window.end - window.start) / 1000).toFixed(0)} ms wall)`,
);
console.log("\nself time by function:");
for (const [fn, n] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${pct(n)} ${ms(n)}  ${fn}`);
console.log("\nself time by file:");
for (const [f, n] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`${pct(n)} ${ms(n)}  ${f}`);
