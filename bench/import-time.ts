// What `import` of a subpath costs a program: the time from `import()` to its module being evaluated, in a fresh
// Node process each time (median of ROUNDS processes, default 9), as wall time and as the process's CPU time
// (user + system: on this shared 2-core machine the wall time mostly measures the other processes), and how
// many modules it loads, counted by a
// load hook (scripts/import-probe.mjs) in one more process, since the hook itself costs time. The packages
// column names the npm packages among them, so a regression ("deputy-js/plan loads pg again") reads at a glance.
// Run `npm run bench:imports` (it builds dist/ first); ENTRIES=plan,agents picks subpaths ("." is the root).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const probe = join(root, "scripts/import-probe.mjs");
const rounds = Number(process.env.ROUNDS ?? 9);
const exportsMap = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports as Record<
  string,
  string | { default: string }
>;
const subpaths = Object.keys(exportsMap).filter((k) => k !== "./package.json");
const picked = process.env.ENTRIES?.split(",").map((e) => (e === "." ? "." : `./${e}`)) ?? [".", "./plan"];

interface Probe {
  ms: number;
  cpuMs: number;
  modules?: string[];
}

function run(entry: string, countModules: boolean): Probe {
  const args = [probe, entry, ...(countModules ? ["--modules"] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" })) as Probe;
}

/** `node_modules/@scope/name/…` → `@scope/name`; deputy's own files are not a package. */
function packageOf(url: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const entries = picked.filter((p) => subpaths.includes(p));
const times = new Map<string, Probe[]>(entries.map((e) => [e, []]));
const load = [loadavg()[0]!];
// Rounds interleave the entries, so a burst of load on this shared machine falls on all of them alike.
for (let r = 0; r < rounds; r++) {
  for (const entry of entries) {
    const spec = exportsMap[entry]!;
    times.get(entry)!.push(run(typeof spec === "string" ? spec : spec.default, false));
  }
}
load.push(loadavg()[0]!);

const rows = entries.map((entry) => {
  const spec = exportsMap[entry]!;
  const modules = run(typeof spec === "string" ? spec : spec.default, true).modules ?? [];
  const packages = [...new Set(modules.map(packageOf).filter((p) => p !== undefined))].sort();
  const ms = times.get(entry)!.map((p) => p.ms);
  const cpu = times.get(entry)!.map((p) => p.cpuMs);
  const name = entry === "." ? "deputy" : `deputy/${entry.slice(2)}`;
  const own = modules.filter((m) => packageOf(m) === undefined).length;
  return `| \`${name}\` | ${median(ms).toFixed(0)} | ${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)} | ${median(cpu).toFixed(0)} | ${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)} | ${modules.length} (${own} own) | ${packages.join(", ")} |`;
});

console.log(
  `Node ${process.version}, ${rounds} fresh processes per entry, load average ${load.map((l) => l.toFixed(1)).join(" → ")}`,
);
console.log("");
console.log(
  "| entry | wall, ms (median) | min–max | CPU, ms (median) | min–max | modules loaded | packages loaded |",
);
console.log("|---|---:|---:|---:|---:|---:|---|");
for (const row of rows) console.log(row);
