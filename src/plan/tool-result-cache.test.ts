import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHost, resumeRun, runPlan } from "../compose/index.js";
import { validatePlan } from "./validate-plan.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import { resultCacheKey } from "./tool-result-cache.js";

/** A read-only lookup that counts its calls (what a cache hit must not make). */
function counted(options: { cache?: { ttl: number }; result?: (q: string) => unknown } = {}) {
  const calls: string[] = [];
  const tool = defineTool({
    name: "lookup",
    description: "Looks a customer up",
    input: z.object({ q: z.string() }),
    delegateSafe: true,
    ...(options.cache ? { cache: options.cache } : {}),
    run: async ({ q }) => {
      calls.push(q);
      await new Promise((r) => setTimeout(r, 1));
      return options.result ? options.result(q) : { customer: q.toUpperCase() };
    },
  });
  return { tool, calls };
}

/** A plan as a file gives it (`unknown`: validated at run time, as the CLI's are). */
function plan(nodes: object[]): { nodes: object[] } & Record<string, unknown> {
  return {
    name: "cached",
    objective: "test",
    nodes: nodes.map((n) => ({ store_as: (n as { id: string }).id, ...n })),
  };
}

const fanOut = (cache: object | null = { ttl: 600 }) =>
  plan([
    {
      id: "each",
      tool: "lookup",
      args: { q: "{item}" },
      ...(cache ? { cache } : {}),
      store_as: "r_{index}",
      for_each: { source: "{artifacts.qs}", max_concurrency: 1 },
    },
  ]);

describe("cached tool results (cache: { ttl })", () => {
  it("calls the tool once per distinct argument in a fan-out and marks each hit in the manifest", async () => {
    const { tool, calls } = counted();
    const m = await runPlan(fanOut(), { artifacts: { qs: ["a", "b", "a", "a", "b", "c"] }, tools: [tool] });
    expect(m.status).toBe("completed");
    expect(calls).toEqual(["a", "b", "c"]);
    expect(m.artifacts.r_3).toEqual({ customer: "A" });
    expect(m.nodes.each!.itemDetails).toEqual({
      2: { cached: true },
      3: { cached: true },
      4: { cached: true },
    });
  });

  it("caches nothing without `cache`, and a node's own ttl overrides the definition's", async () => {
    const plain = counted();
    await runPlan(fanOut(null), { artifacts: { qs: ["a", "a"] }, tools: [plain.tool] });
    expect(plain.calls).toEqual(["a", "a"]);
    // The definition's ttl alone caches; the node's shorter one expires first (injected clock).
    let now = 1_000_000;
    const store = new MemoryRunStore();
    const def = counted({ cache: { ttl: 3600 } });
    const options = { tools: [def.tool], store, _internal: { now: () => now } };
    const node = (cache?: object) =>
      plan([{ id: "one", tool: "lookup", args: { q: "x" }, ...(cache ? { cache } : {}) }]);
    await runPlan(node(), options);
    now += 1000 * 1000;
    await runPlan(node(), options);
    expect(def.calls).toEqual(["x"]);
    await runPlan(node({ ttl: 10 }), options);
    expect(def.calls).toEqual(["x", "x"]);
  });

  it("expires an entry after its ttl by the run's clock (injected)", async () => {
    let now = Date.parse("2026-12-01T00:00:00Z");
    const store = new MemoryRunStore();
    const { tool, calls } = counted();
    const options = { tools: [tool], store, _internal: { now: () => now } };
    const single = plan([{ id: "one", tool: "lookup", args: { q: "x" }, cache: { ttl: 60 }, store_as: "x" }]);
    const first = await runPlan(single, options);
    expect(first.nodes.one!.details).toBeUndefined();
    now += 59_999;
    const hit = await runPlan(single, options);
    expect(hit.nodes.one!.details).toEqual({ cached: true });
    expect(hit.artifacts.x).toEqual({ customer: "X" });
    expect(calls).toEqual(["x"]);
    now += 1;
    const expired = await runPlan(single, options);
    expect(expired.nodes.one!.details).toBeUndefined();
    expect(calls).toEqual(["x", "x"]);
  });

  it("survives a restart: a second run on the same SQLite file does not call the tool", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-cache-")), "runs.db");
    const { tool, calls } = counted();
    const first = new SqliteRunStore(path);
    await runPlan(fanOut(), { artifacts: { qs: ["a", "b", "a"] }, tools: [tool], store: first });
    await first.close();
    expect(calls).toEqual(["a", "b"]);
    const second = new SqliteRunStore(path);
    const m = await runPlan(fanOut(), { artifacts: { qs: ["b", "a", "b"] }, tools: [tool], store: second });
    await second.close();
    expect(calls).toEqual(["a", "b"]);
    expect(m.artifacts).toMatchObject({ r_0: { customer: "B" }, r_1: { customer: "A" } });
    expect(m.nodes.each!.itemDetails).toEqual({
      0: { cached: true },
      1: { cached: true },
      2: { cached: true },
    });
  });

  it("keys by the tool's definition: a changed tool is called again", async () => {
    const store = new MemoryRunStore();
    const before = counted();
    await runPlan(fanOut(), { artifacts: { qs: ["a"] }, tools: [before.tool], store });
    const changed = defineTool({
      name: "lookup",
      description: "Looks a customer up (v2)",
      input: z.object({ q: z.string() }),
      delegateSafe: true,
      run: ({ q }) => ({ v2: q }),
    });
    const m = await runPlan(fanOut(), { artifacts: { qs: ["a"] }, tools: [changed], store });
    expect(m.artifacts.r_0).toEqual({ v2: "a" });
  });

  it("does not cache a failure, nor a value with a secret in it (nothing secret reaches the shared table)", async () => {
    const store = new MemoryRunStore();
    let fail = true;
    const flaky = counted({
      result: (q) => {
        if (fail) throw new Error("down");
        return { q, token: "sk-live-abcdefghijklmnopqrstuvwxyz0123456789" };
      },
    });
    const m1 = await runPlan(fanOut(), { artifacts: { qs: ["a"] }, tools: [flaky.tool], store });
    expect(m1.status).not.toBe("completed");
    fail = false;
    await runPlan(fanOut(), { artifacts: { qs: ["a"] }, tools: [flaky.tool], store });
    const m3 = await runPlan(fanOut(), { artifacts: { qs: ["a"] }, tools: [flaky.tool], store });
    expect(flaky.calls).toEqual(["a", "a", "a"]);
    expect((m3.artifacts.r_0 as { q: string }).q).toBe("a");
    expect(await store.clearCache()).toBe(0);
  });

  it("shares one call between equal items in flight at once", async () => {
    const { tool, calls } = counted();
    const p = fanOut();
    (p.nodes[0] as { for_each: { max_concurrency: number } }).for_each.max_concurrency = 4;
    const m = await runPlan(p, { artifacts: { qs: ["a", "a", "a", "a"] }, tools: [tool] });
    expect(calls).toEqual(["a"]);
    expect(Object.keys(m.nodes.each!.itemDetails!)).toHaveLength(3);
  });

  it("resumes without calling what the first attempt cached", async () => {
    const store = new MemoryRunStore();
    const { tool, calls } = counted();
    let broken = true;
    const fragile = defineTool({
      name: "fragile",
      description: "fails until mended",
      input: { type: "object", properties: {} },
      run: () => {
        if (broken) throw new Error("not yet");
        return "ok";
      },
    });
    const p = plan([
      { id: "a", tool: "lookup", args: { q: "x" }, cache: { ttl: 600 } },
      { id: "b", tool: "fragile", depends_on: ["a"] },
    ]);
    const m = await runPlan(p, { tools: [tool, fragile], store });
    expect(m.status).toBe("failed");
    broken = false;
    const resumed = await resumeRun(m.runId, { tools: [tool, fragile], store });
    expect(resumed.status).toBe("completed");
    expect(calls).toEqual(["x"]);
  });
});

describe("cache on a tool with side effects", () => {
  const write = defineTool({
    name: "write_row",
    description: "Writes a row",
    input: z.object({ q: z.string() }),
    run: () => true,
  });

  it("is a validation issue naming the node (cache_side_effect)", () => {
    const report = validatePlan(
      plan([{ id: "w", tool: "write_row", args: { q: "x" }, cache: { ttl: 5 } }]),
      createHost({
        tools: [write],
      }),
    );
    expect(report.ok).toBe(false);
    expect(report.issues).toContainEqual(
      expect.objectContaining({ code: "cache_side_effect", nodeId: "w", path: "cache" }),
    );
  });

  it("is refused by defineTool, as is a ttl that is not a positive number", () => {
    const base = { name: "w", description: "d", input: {}, run: () => 1 };
    expect(() => defineTool({ ...base, cache: { ttl: 5 } })).toThrow(/tool\.cache \(w\).*delegateSafe/s);
    expect(() => defineTool({ ...base, delegateSafe: true, cache: { ttl: 0 } })).toThrow(/positive number/);
    expect(defineTool({ ...base, delegateSafe: true, cache: { ttl: 5 } }).cache).toEqual({ ttl: 5 });
  });

  it("refuses a ttl that is not a positive number in a plan", () => {
    const { tool } = counted();
    const report = validatePlan(
      plan([{ id: "n", tool: "lookup", args: { q: "x" }, cache: { ttl: -1 } }]),
      createHost({
        tools: [tool],
      }),
    );
    expect(report.ok).toBe(false);
    expect(report.issues.some((i) => i.nodeId === "n")).toBe(true);
  });
});

describe("the cache key of a call (generated arguments)", () => {
  const { tool } = counted();

  it("is the same for equal arguments in any key order, and differs when they differ", () => {
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (a, b) => {
          expect(resultCacheKey(tool, a)).toBe(resultCacheKey(tool, reversed(a) as Record<string, unknown>));
          expect(resultCacheKey(tool, a) === resultCacheKey(tool, b)).toBe(
            canonicalJson(a) === canonicalJson(b),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
