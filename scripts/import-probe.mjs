/**
 * Imports one module in this (fresh) process and prints, as one JSON line, how long the `import` took (`ms`,
 * wall clock; `cpuMs`, the process's user + system CPU time, which a busy machine inflates far less) and — with
 * `--modules` — every module it loaded: `node scripts/import-probe.mjs ./dist/plan/index.js --modules`.
 *
 * Used by bench/import-time.ts (time and module counts) and test/subpath-imports.test.ts (which packages a
 * subpath loads). The modules are seen through `module.registerHooks`, whose load hook runs for every module
 * that `import` and `require` load (ESM and CommonJS alike), so a package that a subpath reaches only through a
 * CommonJS `require` is counted too. The hook costs time, so the time is measured in a run without it.
 */
import { registerHooks } from "node:module";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [entry, flag] = process.argv.slice(2);
const loaded = new Set();
if (flag === "--modules") {
  registerHooks({
    load(url, context, nextLoad) {
      loaded.add(url);
      return nextLoad(url, context);
    },
  });
}
const cpu = process.cpuUsage();
const started = performance.now();
await import(pathToFileURL(entry).href);
const ms = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
const cpuMs = (user + system) / 1000;
const modules = [...loaded].filter((url) => !url.startsWith("node:"));
process.stdout.write(`${JSON.stringify(flag === "--modules" ? { ms, cpuMs, modules } : { ms, cpuMs })}\n`);
