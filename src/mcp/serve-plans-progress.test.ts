/**
 * What a client of the plan server sees while a plan runs, driven by the official MCP client over real
 * Streamable HTTP on 127.0.0.1 (2025-era sessions, the SDK's default, and the 2026 revision the client
 * negotiates when asked) and over a linked pair as stdio would be: progress notifications (nodes and items done,
 * of a total, increasing) when it asks for them; a cancellation that stops the run as SIGINT does, leaving it
 * resumable, and a resume that runs only what had not run; and `readOnlyHint` on a plan that calls no
 * side-effecting tool.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeRun } from "../compose/index.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { defineNodeType } from "../plan/node-type.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { legacySessions } from "./serve-http-sessions.js";
import { servePlansHttp, type RunningPlanServer } from "./serve-http.js";
import { servePlans, type PlanServer } from "./serve-plans.js";

/** Calls of `mark` by item; a call of the item in `held` waits until the test releases it. */
const calls = new Map<string, number>();
let held: { item: string; started: boolean; released: Promise<void>; release: () => void } | undefined;
function holdAt(item: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  held = { item, started: false, released, release };
  return held;
}
const tools = [
  defineTool({
    name: "list_items",
    description: "Six items",
    delegateSafe: true,
    input: { type: "object", properties: { prefix: { type: "string" } } },
    run: ({ prefix }: { prefix?: string }) => [0, 1, 2, 3, 4, 5].map((i) => `${prefix ?? "item"}-${i}`),
  }),
  defineTool({
    name: "mark",
    description: "Marks an item (a side effect)",
    input: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    run: async ({ item }: { item: string }) => {
      calls.set(item, (calls.get(item) ?? 0) + 1);
      if (held?.item === item) {
        held.started = true;
        await held.released;
      }
      return { marked: item };
    },
  }),
];
const fanOut = (name: string) => ({
  name,
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
      store_as: "marks.{index}",
    },
    { id: "end", tool: "mark", depends_on: ["each"], args: { item: "{inputs.prefix}-end" }, store_as: "end" },
  ],
});
const readOnly = {
  name: "read_only",
  objective: "Lists items, and a delegate picks among read-only tools.",
  nodes: [
    { id: "list", tool: "list_items", store_as: "items" },
    {
      id: "pick",
      type: "delegate",
      instruction: "Pick",
      tools: ["list_items"],
      depends_on: ["list"],
      store_as: "picked",
    },
  ],
};
const delegateMayMark = {
  name: "delegate_may_mark",
  objective: "A delegate whose candidates include a side-effecting tool.",
  nodes: [
    {
      id: "pick",
      type: "delegate",
      instruction: "Pick",
      tools: ["list_items", "mark"],
      allow_side_effects: true,
      store_as: "p",
    },
  ],
};

const store = new MemoryRunStore();
const cancelled: string[] = [];
let plans: PlanServer;
let http: RunningPlanServer;
const clients: Client[] = [];

beforeAll(async () => {
  plans = servePlans({
    plans: [fanOut("fan_out"), readOnly, delegateMayMark],
    tools,
    store,
    delegates: [new ScriptedDelegate({ entries: [] })],
    allowDelegateSideEffects: true,
    onCancel: ({ runId }) => cancelled.push(runId),
  });
  http = await servePlansHttp(plans);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await plans?.close();
  await http?.close();
});

/** A client over HTTP in the 2025 era (the SDK's default), over HTTP in the 2026 one, or over a linked pair. */
async function connect(kind: "http-2025" | "http-2026" | "session"): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    kind === "http-2026" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  if (kind === "session") {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await plans.createServer().connect(serverSide);
    await client.connect(clientSide);
  } else await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  clients.push(client);
  return client;
}

const answerOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  JSON.parse((result.content as { text: string }[]).map((c) => c.text).join(""));

describe.each(["http-2025", "http-2026", "session"] as const)("a plan server's client (%s)", (kind) => {
  it("receives progress it asks for: nodes and items done of the plan's nodes, always increasing, to the total", async () => {
    const client = await connect(kind);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    // Item 3 waits until the client has read the progress of items 0–2: the SDK's client drops a notification
    // that it reads together with the answer (it handles notifications a microtask later), so only what comes
    // before the run's end is sure to be seen.
    const gate = holdAt(`${kind}-p-3`);
    const call = client.callTool(
      { name: "fan_out", arguments: { prefix: `${kind}-p` } },
      { onprogress: (p) => seen.push(p) },
    );
    await expect
      .poll(() => seen.map((p) => p.message), { timeout: 10_000, interval: 20 })
      .toContain("nodes 1/3 · each items 3/6");
    gate.release();
    expect(answerOf(await call)).toMatchObject({ status: "completed", result: { marked: `${kind}-p-end` } });
    expect(seen.length).toBeGreaterThanOrEqual(4); // list, then items 0, 1 and 2
    for (const p of seen) expect(p.total).toBe(3);
    const values = seen.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThan(values[i - 1]!);
    expect(values.at(-1)).toBeLessThanOrEqual(3);
    // The items move it between nodes.
    expect(values).toContain(1.5);
  });

  it("sends no progress to a client that does not ask", async () => {
    const client = await connect(kind);
    const notified: unknown[] = [];
    client.setNotificationHandler("notifications/progress", (n) => void notified.push(n));
    const result = await client.callTool({ name: "fan_out", arguments: { prefix: `${kind}-q` } });
    expect(answerOf(result).status).toBe("completed");
    expect(notified).toEqual([]);
  });

  it("stops the run when the client cancels: what ran is committed, and a resume runs only the rest", async () => {
    const client = await connect(kind);
    const prefix = `${kind}-c`;
    const gate = holdAt(`${prefix}-2`);
    const cancel = new AbortController();
    const call = client
      .callTool({ name: "fan_out", arguments: { prefix } }, { signal: cancel.signal })
      .catch((e: unknown) => e);
    await expect.poll(() => gate.started, { timeout: 10_000, interval: 20 }).toBe(true);
    const run = (await store.list({ limit: 1000 })).find((r) => r.status === "running")!;
    cancel.abort();
    expect(await call).toBeInstanceOf(Error);
    // Item 2 is in flight when the cancellation reaches the run; it finishes, is committed, and nothing new starts.
    await expect.poll(() => cancelled, { timeout: 10_000, interval: 20 }).toContain(run.runId);
    gate.release();
    await expect.poll(() => plans.running, { timeout: 10_000, interval: 20 }).toBe(0);
    const stopped = await store.load(run.runId);
    expect(stopped?.run.status).toBe("interrupted");
    expect(calls.get(`${prefix}-2`)).toBe(1);
    expect(calls.get(`${prefix}-3`)).toBeUndefined();

    const resumed = await resumeRun(run.runId, { store, tools });
    expect(resumed.status).toBe("completed");
    expect(resumed.artifacts.end).toEqual({ marked: `${prefix}-end` });
    for (let i = 0; i < 6; i++) expect(calls.get(`${prefix}-${i}`), `item ${i}`).toBe(1);
    expect(calls.get(`${prefix}-end`)).toBe(1);
  });
});

describe("a served plan's annotations", () => {
  it("say readOnlyHint only when no node can call a side-effecting tool (a delegate's candidates count)", async () => {
    const client = await connect("http-2025");
    const { tools: listed } = await client.listTools();
    const hint = (name: string) => listed.find((t) => t.name === name)?.annotations?.readOnlyHint;
    expect(hint("read_only")).toBe(true);
    expect(hint("fan_out")).toBeUndefined();
    expect(hint("delegate_may_mark")).toBeUndefined();
    // A node of another type (an agent, a host's own type) may do anything: never read-only.
    const noop = defineNodeType({
      name: "noop",
      fields: {},
      executor: { execute: async () => ({ status: "ok", value: null }) },
    });
    const withOwnType = servePlans({
      plans: [{ ...readOnly, nodes: [...readOnly.nodes, { id: "other", type: "noop", store_as: "o" }] }],
      tools,
      nodeTypes: [noop],
      delegates: [new ScriptedDelegate({ entries: [] })],
    });
    expect(withOwnType.tools[0]!.readOnly).toBe(false);
  });
});

describe("the 2025-era sessions of the HTTP endpoint", () => {
  const initialize = (id: number) =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
  const ping = (session: string) =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });

  it("keep at most maxSessions, ending the least recently used idle one; an unknown session is a 404", async () => {
    const sessions = legacySessions(() => plans.createServer(), { maxSessions: 2 });
    const open = async (id: number) => {
      const response = await sessions.fetch(initialize(id));
      await response.text();
      return response.headers.get("mcp-session-id")!;
    };
    const [a, b] = [await open(1), await open(2)];
    expect(sessions.size).toBe(2);
    expect((await sessions.fetch(ping(a))).status).toBe(200); // a is now the more recent
    const c = await open(3);
    expect(sessions.size).toBe(2);
    expect((await sessions.fetch(ping(b))).status).toBe(404);
    expect((await sessions.fetch(ping(a))).status).toBe(200);
    expect((await sessions.fetch(ping(c))).status).toBe(200);
    await sessions.close();
    expect(sessions.size).toBe(0);
  });
});
