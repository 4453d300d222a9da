// Console benchmark: how fast a run with 10,000 items opens (issue 16). Builds a run of the alert-triage shape
// in an SQLite store (10,000 items, 1 in 20 escalated with its proposal), serves the console over it, and times
// what opening it costs: the API answers the run page needs (the run with its graph and counts, the first page
// of items, the run's escalations), then the whole page in chromium (navigation to the drawn graph and the
// first page of items). Beside them, loading the whole run (`store.load`, what a viewer without paging and
// counts in the store would do). Run: npm run bench:ui (builds first; prints a table; nothing is asserted).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { SqliteRunStore, type RunMutation } from "../dist/plan/index.js";
import { serveConsole } from "../dist/ui/server/serve-console.js";

const ITEMS = Number(process.env.ITEMS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);

const dir = mkdtempSync(join(tmpdir(), "deputy-bench-ui-"));
const store = new SqliteRunStore(join(dir, "runs.db"));
const runId = "bench-10k";
const alerts = Array.from({ length: ITEMS }, (_, i) => ({
  id: `ALR-${i}`,
  severity: ["low", "medium", "high", "critical"][i % 4],
  summary: `Alert ${i}: error rate above threshold on service ${i % 37}`,
}));
const plan = {
  name: "alert-triage-10k",
  nodes: [
    { id: "fetch_alerts", tool: "fetch_alerts", args: {}, store_as: "fetch_alerts" },
    {
      id: "triage_items",
      type: "delegate",
      depends_on: ["fetch_alerts"],
      store_as: "triage_result_{index}",
      instruction: "Analyze this alert and select the most appropriate action: {item.summary}",
      facts: { alert_id: "{item.id}", severity: "{item.severity}" },
      tools: ["file_jira_ticket", "ignore_alert"],
      min_confidence: 0.8,
      on_reject: "escalate",
      for_each: { source: "{artifacts.fetch_alerts}", select: "alerts[]", max_items: ITEMS },
    },
  ],
};
const now = new Date().toISOString();
await store.createRun({
  runId,
  planName: plan.name,
  fingerprint: "f",
  plan,
  status: "escalated",
  createdAt: now,
  updatedAt: now,
  options: { version: 1 },
});
const batch: RunMutation[] = [
  { kind: "artifact", key: "fetch_alerts", value: { alerts } },
  {
    kind: "node",
    nodeId: "fetch_alerts",
    record: { status: "ok", storedKeys: ["fetch_alerts"], attempts: 1 },
  },
];
let escalated = 0;
for (let index = 0; index < ITEMS; index++) {
  const proposal = {
    name: "ignore_alert",
    arguments: { alert_id: `ALR-${index}`, reason: "noise" },
    confidence: 0.5,
  };
  const hops = [
    {
      backend: "local",
      verdict: index % 20 === 0 ? "low_confidence" : "accepted",
      source: "delegate",
      confidence: 0.9,
      latencyMs: 40,
    },
  ];
  if (index % 20 === 0) {
    escalated++;
    batch.push({
      kind: "item",
      nodeId: "triage_items",
      item: {
        index,
        status: "escalated",
        escalation: {
          nodeId: "triage_items",
          item: index,
          verdict: "low_confidence",
          reason: "confidence 0.5 is below min_confidence 0.8",
          proposal,
          createdAt: now,
        },
        details: { verdict: "low_confidence", hops },
      },
    });
  } else
    batch.push({
      kind: "item",
      nodeId: "triage_items",
      item: {
        index,
        status: "ok",
        key: `triage_result_${index}`,
        details: {
          verdict: "accepted",
          hops,
          spend: { calls: 1, tokens: 120, cost: 0.00001, duration: 0.04 },
        },
      },
      value: { action: "ignore", key: `${runId}/triage_items/${index}` },
    });
}
batch.push({
  kind: "node",
  nodeId: "triage_items",
  record: {
    status: "escalated",
    storedKeys: [],
    attempts: 1,
    items: { total: ITEMS, ok: ITEMS - escalated, error: 0, skipped: 0, escalated, reused: 0 },
  },
});
await store.write(runId, batch);

const served = await serveConsole({ store, port: 0 });
const api = (path: string) =>
  fetch(served.origin + path, { headers: { "X-Deputy-Token": served.token } }).then((r) => r.json());

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
/** Wall-clock median and max, and the median CPU time of this process (server and client), which load on a
 * shared machine inflates far less than wall time. */
async function time(label: string, fn: () => Promise<unknown>, rounds = ROUNDS) {
  await fn();
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return { label, median: median(ms), max: Math.max(...ms), cpu: median(cpu) };
}

const rows = [
  await time("API: run (graph, counts, spend)", () => api(`/api/runs/${runId}`)),
  await time("API: first page of 50 items", () =>
    api(`/api/runs/${runId}/nodes/triage_items/items?limit=50`),
  ),
  await time("API: escalated items, page 1", () =>
    api(`/api/runs/${runId}/nodes/triage_items/items?status=escalated&limit=50`),
  ),
  await time(`API: inbox of the run (${escalated} escalations)`, () => api(`/api/inbox?runId=${runId}`)),
  await time("API: runs list", () => api(`/api/runs`)),
  await time("store.load (the whole run, for comparison)", () => store.load(runId)),
];

let browserRows: typeof rows = [];
let executablePath: string | undefined;
try {
  executablePath = execFileSync("bash", ["scripts/chromium.sh"], { encoding: "utf8" }).trim();
} catch {
  console.error("chromium not found: the in-browser timings are left out");
}
if (executablePath) {
  const browser = await chromium.launch({
    executablePath,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
  const page = await browser.newPage();
  await page.goto(served.url);
  await page.locator("table.runs").waitFor();
  browserRows = [
    await time("chromium: run page to drawn graph", async () => {
      await page.goto("about:blank");
      await page.goto(`${served.origin}/#/runs/${runId}`);
      await page.locator('svg.graph [data-node="triage_items"]').waitFor();
    }),
    await time("chromium: node page to first 50 items", async () => {
      await page.goto("about:blank");
      await page.goto(`${served.origin}/#/runs/${runId}/nodes/triage_items`);
      await page.locator("table.items tr.item-row >> nth=49").waitFor();
    }),
  ];
  await browser.close();
}

await served.close();
await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  `\nConsole over a run of ${ITEMS.toLocaleString("en")} items (${escalated} escalated), SQLite store; ${ROUNDS} rounds after a warm-up, Node ${process.version}\n`,
);
console.log(
  `1-minute load average at the end: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores\n`,
);
console.log("| what | median | max | CPU of this process, median |\n|---|---:|---:|---:|");
for (const r of [...rows, ...browserRows]) {
  const cpu = r.label.startsWith("chromium") ? "– (browser)" : `${r.cpu.toFixed(1)} ms`;
  console.log(`| ${r.label} | ${r.median.toFixed(1)} ms | ${r.max.toFixed(1)} ms | ${cpu} |`);
}
