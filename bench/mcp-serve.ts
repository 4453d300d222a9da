// MCP server benchmark: what serving a plan as an MCP tool costs per call, beside running it directly. One
// one-node plan (a tool that echoes its input) is called CALLS times, one call at a time, through: runPlan
// (the floor), the official MCP client over an in-memory session, and over Streamable HTTP on 127.0.0.1 — each
// with a memory store and with an SQLite file (a run is durable, so every call writes its checkpoints).
// Run: npm run bench:mcp-serve (builds first; prints a table; nothing is asserted).
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { MemoryRunStore, runPlan, SqliteRunStore, type RunStore } from "../dist/index.js";
import { servePlans, servePlansHttp } from "../dist/mcp/index.js";

const CALLS = Number(process.env.CALLS ?? 300);
const dir = mkdtempSync(join(tmpdir(), "deputy-bench-mcp-"));

const tools = [
  {
    name: "echo",
    description: "Echoes its text",
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: ({ text }: { text: string }) => ({ text }),
  },
];
const plan = {
  name: "echo_plan",
  objective: "Echoes a text.",
  inputs: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  returns: "out",
  nodes: [{ id: "echo", tool: "echo", args: { text: "{inputs.text}" }, store_as: "out" }],
};

/** Milliseconds per call: median and p95 of CALLS sequential calls (after 20 warm-up calls). */
async function time(call: (i: number) => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 20; i++) await call(i);
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call(i);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]! };
}

async function measure(storeName: string, makeStore: () => RunStore) {
  const rows: [string, { median: number; p95: number }][] = [];
  let store = makeStore();
  rows.push(["runPlan", await time((i) => runPlan(plan, { tools, store, inputs: { text: `t${i}` } }))]);
  await store.close();

  store = makeStore();
  const plans = servePlans({ plans: [plan], tools, store });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await plans.createServer().connect(serverSide);
  const session = new Client({ name: "bench", version: "1" });
  await session.connect(clientSide);
  rows.push([
    "MCP, in-memory session",
    await time((i) => session.callTool({ name: "echo_plan", arguments: { text: `t${i}` } })),
  ]);
  await session.close();

  const http = await servePlansHttp(plans);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  rows.push([
    "MCP, Streamable HTTP",
    await time((i) => client.callTool({ name: "echo_plan", arguments: { text: `t${i}` } })),
  ]);
  await client.close();
  await plans.close();
  await http.close();
  await store.close();
  return rows.map(([how, t]) => ({ store: storeName, how, ...t }));
}

const results = [
  ...(await measure("memory", () => new MemoryRunStore())),
  ...(await measure("SQLite file", () => new SqliteRunStore(join(dir, `runs-${Date.now()}.db`)))),
];
rmSync(dir, { recursive: true, force: true });

console.log(
  `\n${CALLS} sequential calls of a one-node plan; Node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(1)}\n`,
);
console.log("| store | how | median ms/call | p95 ms/call | × runPlan (median) |");
console.log("|---|---|---|---|---|");
for (const r of results) {
  const floor = results.find((x) => x.store === r.store && x.how === "runPlan")!.median;
  console.log(
    `| ${r.store} | ${r.how} | ${r.median.toFixed(2)} | ${r.p95.toFixed(2)} | ${(r.median / floor).toFixed(1)} |`,
  );
}
