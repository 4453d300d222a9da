/**
 * `deputy mcp serve` while a plan runs, as a user runs it: the real process (bin/deputy.js over dist/) driven by
 * the official MCP client over stdio and over Streamable HTTP (with its bearer token). A client that asks gets
 * progress notifications (of the plan's nodes, increasing); a client that cancels stops the run as SIGINT
 * would, and `deputy resume` completes it without calling any tool of a finished item again (the tools module
 * writes a line per call to a marker file); the plan that calls only read-only tools says `readOnlyHint`.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../../bin/deputy.js", import.meta.url));
const run = promisify(execFile);

// `mark` appends its item to $MARKS; an item $HOLD names (a comma-separated list) then writes $STARTED-ITEM and
// waits until the file $RELEASE-ITEM exists.
const TOOLS = `
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
export const tools = [
  { name: "list_items", description: "Six items", delegateSafe: true,
    input: { type: "object", properties: { prefix: { type: "string" } } },
    run: ({ prefix }) => [0, 1, 2, 3, 4, 5].map((i) => prefix + "-" + i) },
  { name: "mark", description: "Marks an item",
    input: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    run: async ({ item }) => {
      appendFileSync(process.env.MARKS, item + "\\n");
      if ((process.env.HOLD ?? "").split(",").includes(item)) {
        writeFileSync(process.env.STARTED + "-" + item, "1");
        while (!existsSync(process.env.RELEASE + "-" + item)) await new Promise((r) => setTimeout(r, 20));
      }
      return { marked: item };
    } },
];`;

const fanOut = {
  name: "fan_out",
  objective: "Marks every item, one at a time, then the end.",
  inputs: { type: "object", properties: { prefix: { type: "string" } }, required: ["prefix"] },
  returns: "end",
  nodes: [
    { id: "list", tool: "list_items", args: { prefix: "{inputs.prefix}" }, store_as: "items" },
    {
      id: "each",
      tool: "mark",
      depends_on: ["list"],
      for_each: { source: "{artifacts.items}", max_concurrency: 1 },
      args: { item: "{item}" },
      store_as: "mark_{index}",
    },
    { id: "end", tool: "mark", depends_on: ["each"], args: { item: "{inputs.prefix}-end" }, store_as: "end" },
  ],
};
const listOnly = {
  name: "list_only",
  objective: "Lists the items.",
  returns: "items",
  nodes: [{ id: "list", tool: "list_items", args: { prefix: "x" }, store_as: "items" }],
};

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-progress-"));
  mkdirSync(join(dir, "plans"));
  writeFileSync(join(dir, "plans", "fan_out.json"), JSON.stringify(fanOut));
  writeFileSync(join(dir, "plans", "list_only.json"), JSON.stringify(listOnly));
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  const store = join(dir, "runs.db");
  const tools = join(dir, "tools.mjs");
  const args = [BIN, "mcp", "serve", "--plans", join(dir, "plans"), "--tools", tools, "--store", store];
  const files = {
    MARKS: join(dir, "marks"),
    STARTED: join(dir, "started"),
    RELEASE: join(dir, "release"),
  };
  const env = { ...process.env, ...files, HOLD: "p-3,c-2" } as Record<string, string>;
  return { dir, store, tools, args, env, files };
}

/** A client of `deputy mcp serve` over stdio or over HTTP (with the token it prints); `stderr()` so far. */
async function serve(ws: ReturnType<typeof workspace>, over: "stdio" | "http") {
  const client = new Client({ name: "test", version: "1.0.0" });
  let stderr = "";
  if (over === "stdio") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ws.args,
      cwd: ws.dir,
      env: ws.env,
      stderr: "pipe",
    });
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    await client.connect(transport);
    return { client, stderr: () => stderr, stop: () => client.close() };
  }
  const child = spawn(process.execPath, [...ws.args, "--http", "0"], {
    cwd: ws.dir,
    env: ws.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  await expect.poll(() => stderr, { timeout: 20_000, interval: 50 }).toMatch(/Authorization: Bearer \S+"/);
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)![1]!;
  const token = /Authorization: Bearer (\S+)"/.exec(stderr)![1]!;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const stop = async () => {
    await client.close();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  return { client, stderr: () => stderr, stop };
}

const answerOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  JSON.parse((result.content as { text: string }[]).map((c) => c.text).join(""));
const marks = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

describe.each(["stdio", "http"] as const)("deputy mcp serve over %s, while a plan runs", (over) => {
  it("sends progress to a client that asks, stops a run the client cancels, and `deputy resume` runs only the rest", async () => {
    const ws = workspace();
    const server = await serve(ws, over);
    try {
      const { client } = server;
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "list_only")?.annotations?.readOnlyHint).toBe(true);
      expect(tools.find((t) => t.name === "fan_out")?.annotations?.readOnlyHint).toBeUndefined();

      // Item p-3 waits until the client has read the progress of items 0–2: the SDK's client drops a
      // notification it reads together with the answer, so only what comes before the run's end is sure.
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const progressed = client.callTool(
        { name: "fan_out", arguments: { prefix: "p" } },
        { onprogress: (p) => seen.push(p) },
      );
      await expect
        .poll(() => seen.map((p) => p.message), { timeout: 20_000, interval: 20 })
        .toContain("nodes 1/3 · each items 3/6");
      writeFileSync(`${ws.files.RELEASE}-p-3`, "1");
      expect(answerOf(await progressed)).toMatchObject({ status: "completed", result: { marked: "p-end" } });
      expect(seen.length).toBeGreaterThanOrEqual(4);
      expect(new Set(seen.map((p) => p.total))).toEqual(new Set([3]));
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
      expect(seen.at(-1)!.progress).toBeLessThanOrEqual(3);

      // Item c-2 waits (for $RELEASE-c-2) while the client cancels the call.
      const cancel = new AbortController();
      const call = client
        .callTool({ name: "fan_out", arguments: { prefix: "c" } }, { signal: cancel.signal })
        .catch((e: unknown) => e);
      await expect
        .poll(() => existsSync(`${ws.files.STARTED}-c-2`), { timeout: 20_000, interval: 50 })
        .toBe(true);
      cancel.abort();
      expect(await call).toBeInstanceOf(Error);
      await expect
        .poll(server.stderr, { timeout: 20_000, interval: 50 })
        .toMatch(/run (\S+) of fan_out: the client cancelled it/);
      const runId = /run (\S+) of fan_out: the client cancelled it/.exec(server.stderr())![1]!;
      writeFileSync(`${ws.files.RELEASE}-c-2`, "1");
      const status = async () =>
        (
          JSON.parse(
            (await run(process.execPath, [BIN, "runs", "--store", ws.store, "--json"], { cwd: ws.dir }))
              .stdout,
          ) as { runId: string; status: string }[]
        ).find((r) => r.runId === runId)?.status;
      await expect.poll(status, { timeout: 20_000, interval: 200 }).toBe("interrupted");
      expect(marks(ws.files.MARKS).filter((m) => m.startsWith("c-"))).toEqual(["c-0", "c-1", "c-2"]);

      const resumed = await run(
        process.execPath,
        [BIN, "resume", runId, "--store", ws.store, "--tools", ws.tools, "--json"],
        { cwd: ws.dir, env: { ...ws.env, HOLD: "" } },
      );
      expect(JSON.parse(resumed.stdout).status).toBe("completed");
      // Every item and the end marked exactly once across the cancelled run and its resume.
      expect(marks(ws.files.MARKS).filter((m) => m.startsWith("c-"))).toEqual([
        "c-0",
        "c-1",
        "c-2",
        "c-3",
        "c-4",
        "c-5",
        "c-end",
      ]);
    } finally {
      await server.stop();
    }
  });
});
