// The for_each path of a prepared tool node (ItemLoop + PreparedToolNode + dispatchToolThen): synchronous and
// asynchronous tools, per-item argument checks, the JSON check of results, throws, aborts and secrets in records.
import { describe, expect, it } from "vitest";
import { defineTool } from "../tools/define-tool.js";
import { runPlan } from "../compose/index.js";

const itemSchema = {
  type: "object",
  properties: { i: { type: "integer" } },
  required: ["i"],
  additionalProperties: false,
} as const;

function fan(tool: string, n: number, concurrency: number, extra: object = {}) {
  return {
    name: "fan",
    nodes: [
      { id: "src", tool: "list", store_as: "src" },
      {
        id: "each",
        tool,
        depends_on: ["src"],
        store_as: "r{index}",
        args: { i: "{item.i}" },
        for_each: { source: "{artifacts.src}", max_items: n, max_concurrency: concurrency },
        ...extra,
      },
    ],
  };
}

const list = (items: unknown[]) =>
  defineTool({ name: "list", description: "items", input: { type: "object" }, run: () => items });
const range = (n: number) => list(Array.from({ length: n }, (_, i) => ({ i })));

describe("for_each over a prepared tool node", () => {
  it("keeps every item's value under its key, in order, whether the tool answers now or later", async () => {
    const sync = defineTool({ name: "sync", description: "i*2", input: itemSchema, run: ({ i }) => i * 2 });
    const later = defineTool({
      name: "later",
      description: "i*2",
      input: itemSchema,
      run: async ({ i }) => i * 2,
    });
    for (const tool of ["sync", "later"])
      for (const c of [1, 3, 64]) {
        const m = await runPlan(fan(tool, 200, c), { tools: [range(200), sync, later] });
        expect(m.status).toBe("completed");
        expect(m.nodes.each!.items).toMatchObject({ total: 200, ok: 200, error: 0 });
        for (let i = 0; i < 200; i++) expect(m.artifacts[`r${i}`]).toBe(i * 2);
        expect(m.nodes.each!.storedKeys).toHaveLength(200);
      }
  });

  it("checks each item's arguments against the schema, and each result as JSON data", async () => {
    const items = [{ i: 1 }, { i: "two" }, { i: 3 }, { i: 4 }];
    const odd = defineTool({
      name: "odd",
      description: "a Map for 3, a function for 4",
      input: itemSchema,
      run: ({ i }) => (i === 3 ? new Map() : i === 4 ? () => i : i),
    });
    const m = await runPlan(fan("odd", 4, 2), { tools: [list(items), odd] });
    expect(m.nodes.each!.status).toBe("partial");
    const codes = Object.fromEntries(m.nodes.each!.errors.map((e) => [e.item, e.code]));
    expect(codes).toEqual({ 1: "TOOL_ARGS_INVALID", 2: "RESULT_NOT_JSON", 3: "RESULT_NOT_JSON" });
    expect(m.artifacts.r0).toBe(1);
    expect(Object.hasOwn(m.artifacts, "r2")).toBe(false);
  });

  it("records a tool that throws, now or later, as that item's error, redacted", async () => {
    const secret = "sk-ant-api03-" + "a".repeat(40);
    const boom = defineTool({
      name: "boom",
      description: "throws for odd items",
      input: itemSchema,
      run: ({ i }) => {
        if (i % 2) throw new Error(`bad key ${secret}`);
        return i;
      },
    });
    const boomLater = defineTool({
      name: "boomLater",
      description: "rejects for odd items",
      input: itemSchema,
      run: async ({ i }) => {
        if (i % 2) throw new Error(`bad key ${secret}`);
        return i;
      },
    });
    for (const tool of ["boom", "boomLater"]) {
      const m = await runPlan(fan(tool, 6, 2), { tools: [range(6), boom, boomLater] });
      expect(m.nodes.each!.items).toMatchObject({ ok: 3, error: 3 });
      expect(JSON.stringify(m)).not.toContain(secret);
      expect(m.nodes.each!.errors.map((e) => e.item)).toEqual([1, 3, 5]);
    }
  });

  it("abandons items whose tool ignores its signal when the run is aborted", async () => {
    const stuck = defineTool({
      name: "stuck",
      description: "never settles",
      input: itemSchema,
      run: () => new Promise(() => {}),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("enough")), 30);
    const m = await runPlan(fan("stuck", 50, 8), { tools: [range(50), stuck], signal: controller.signal });
    expect(m.status).toBe("cancelled");
    expect(m.nodes.each!.status).toBe("error");
    expect(m.nodes.each!.items).toMatchObject({ error: 8, ok: 0 });
  });

  it("still honours a per-item timeout and retries (the slow path)", async () => {
    let calls = 0;
    const flaky = defineTool({
      name: "flaky",
      description: "fails every first attempt",
      input: itemSchema,
      run: ({ i }) => {
        if (calls++ % 2 === 0) throw new Error("first attempt");
        return i;
      },
    });
    const m = await runPlan(
      fan("flaky", 5, 1, { retry: { max_attempts: 2, backoff_seconds: 0 }, timeout: 5 }),
      {
        tools: [range(5), flaky],
      },
    );
    expect(m.status).toBe("completed");
    expect(m.nodes.each!.itemDetails).toEqual(
      Object.fromEntries(Array.from({ length: 5 }, (_, i) => [i, { attempts: 2 }])),
    );
  });
  it("gives each item the same tool context on the fast path as on the retry path, run after run", async () => {
    const seen: Record<string, unknown[]> = {};
    const record = defineTool({
      name: "record",
      description: "keeps its context",
      input: itemSchema,
      run: async ({ i }, ctx) => {
        const { signal, ...rest } = ctx;
        (seen[ctx.runId] ??= []).push({ keys: Object.keys(ctx), aborted: signal.aborted, ...rest });
        return i;
      },
    });
    const retry = { retry: { max_attempts: 2, backoff_seconds: 0 } };
    for (const runId of ["fast1", "fast2"])
      await runPlan(fan("record", 3, 2), { tools: [range(3), record], runId });
    await runPlan(fan("record", 3, 2, retry), { tools: [range(3), record], runId: "slow" });
    const expected = (runId: string) =>
      [0, 1, 2].map((i) => ({
        keys: ["signal", "idempotencyKey", "runId", "nodeId", "attempt", "itemIndex"],
        aborted: false,
        idempotencyKey: `${runId}/each/${i}`,
        runId,
        nodeId: "each",
        attempt: 1,
        itemIndex: i,
      }));
    for (const runId of ["fast1", "fast2", "slow"]) expect(seen[runId]).toEqual(expected(runId));
  });
});
