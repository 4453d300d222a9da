// MCP tools benchmark: what a tool call costs through an MCP server against the same call in process, on the
// reference "everything" server's `echo` (stdio and Streamable HTTP), in a plan's for_each (ITEMS items at
// max_concurrency 1 and 8, in-memory store), plus the time to start and list a server and to close it. Medians of
// ROUNDS rounds after one warm-up. Run: npm run bench:mcp-tools (builds, then prints a table; nothing is asserted).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { runPlan } from "../dist/index.js";
import { mcpTools, type McpServerOptions } from "../dist/mcp/index.js";
import { defineTool } from "../dist/tools/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const ITEMS = Number(process.env.ITEMS ?? 200);
const root = resolve(import.meta.dirname, "..");
const EVERYTHING = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const echo = defineTool({
  name: "echo",
  description: "Echoes back the input string",
  input: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  run: ({ message }: { message: string }) => `Echo: ${message}`,
});
const list = defineTool({
  name: "list",
  description: "items",
  input: { type: "object" },
  run: () => Array.from({ length: ITEMS }, (_, i) => `m${i}`),
});

const plan = (concurrency: number) => ({
  name: "mcp-bench",
  nodes: [
    { id: "l", tool: "list", args: {}, store_as: "l" },
    {
      id: "e",
      tool: "echo",
      depends_on: ["l"],
      args: { message: "{item}" },
      store_as: "e_{index}",
      for_each: { source: "{artifacts.l}", max_concurrency: concurrency },
    },
  ],
});

async function perCallMs(tools: unknown[], concurrency: number): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const t0 = performance.now();
    const manifest = await runPlan(plan(concurrency), { tools: tools as never });
    const ms = performance.now() - t0;
    if (manifest.status !== "completed") throw new Error(`run ${manifest.status}`);
    if (round > 0) times.push(ms / ITEMS); // round 0 warms up
  }
  return median(times);
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

const port = await freePort();
const http = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
  env: { ...process.env, PORT: String(port) },
  stdio: ["ignore", "ignore", "pipe"],
});
await new Promise<void>((ready) =>
  http.stderr!.on("data", (c: Buffer) => String(c).includes("listening") && ready()),
);
const url = `http://127.0.0.1:${port}/mcp`;

const timings: Record<string, number[]> = { stdioOpen: [], stdioClose: [], httpOpen: [], httpClose: [] };
for (let i = 0; i < ROUNDS; i++) {
  const servers: [string, McpServerOptions][] = [
    ["stdio", { command: process.execPath, args: [EVERYTHING, "stdio"] }],
    ["http", { url }],
  ];
  for (const [kind, server] of servers) {
    const t0 = performance.now();
    const tools = await mcpTools(server);
    const t1 = performance.now();
    await tools.close();
    timings[`${kind}Open`]!.push(t1 - t0);
    timings[`${kind}Close`]!.push(performance.now() - t1);
  }
}

const stdioTools = await mcpTools({ command: process.execPath, args: [EVERYTHING, "stdio"] });
const httpTools = await mcpTools({ url });
const rows: [string, number, number][] = [];
for (const [label, tools] of [
  ["in process", [echo, list]],
  ["MCP stdio", [...stdioTools, list]],
  ["MCP Streamable HTTP", [...httpTools, list]],
] as const) {
  rows.push([label, await perCallMs([...tools], 1), await perCallMs([...tools], 8)]);
}
await stdioTools.close();
await httpTools.close();
http.kill();

const base = rows[0]!;
console.log(`\n${ITEMS} echo calls in a for_each, median of ${ROUNDS} rounds (ms per call; × in-process)\n`);
console.log("| tool source | c=1 ms/call | c=8 ms/call | c=1 × | c=8 × |");
console.log("|---|---:|---:|---:|---:|");
for (const [label, c1, c8] of rows)
  console.log(
    `| ${label} | ${c1.toFixed(3)} | ${c8.toFixed(3)} | ${(c1 / base[1]).toFixed(0)} | ${(c8 / base[2]).toFixed(0)} |`,
  );
const m = (k: string) => median(timings[k]!).toFixed(0);
console.log(
  `\nmedian of ${ROUNDS}, ms: stdio connect + list ${m("stdioOpen")}, close ${m("stdioClose")} (a node process started, then stopped: it exits when its stdin closes); Streamable HTTP connect + list ${m("httpOpen")}, close ${m("httpClose")}`,
);
