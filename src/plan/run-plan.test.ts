import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { resumeRun, runPlan } from "../compose/index.js";

const echo = defineTool({
  name: "echo",
  description: "Returns its value",
  input: z.object({ value: z.unknown() }),
  run: ({ value }) => value,
});

function plan(nodes: object[], metadata: object = {}) {
  return { name: "t", objective: "test", nodes, metadata };
}

describe("runPlan", () => {
  it("passes structured values between nodes and interpolates text", async () => {
    const m = await runPlan(
      plan([
        { id: "a", tool: "echo", args: { value: { list: [1, 2], name: "x" } }, store_as: "a" },
        { id: "b", tool: "echo", depends_on: ["a"], args: { value: "{artifacts.a.list}" }, store_as: "b" },
        {
          id: "c",
          tool: "echo",
          depends_on: ["a"],
          args: { value: "name={artifacts.a.name} list={artifacts.a.list}" },
          store_as: "c",
        },
      ]),
      { tools: [echo] },
    );
    expect(m.status).toBe("completed");
    expect(m.artifacts.b).toEqual([1, 2]);
    expect(m.artifacts.c).toBe("name=x list=[1,2]");
    expect(m.nodes.b!.storedKeys).toEqual(["b"]);
  });

  it("runs ready nodes concurrently, never more than max_parallel_tasks", async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = defineTool({
      name: "slow",
      description: "waits",
      input: { type: "object", properties: {} },
      run: async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return true;
      },
    });
    const nodes = Array.from({ length: 8 }, (_, i) => ({ id: `n${i}`, tool: "slow", store_as: `n${i}` }));
    const m = await runPlan(plan(nodes, { max_parallel_tasks: 3 }), { tools: [slow] });
    expect(m.status).toBe("completed");
    expect(peak).toBe(3);
  });

  it("skips a node whose when is false and blocks the dependents of a failed node", async () => {
    const boom = defineTool({
      name: "boom",
      description: "fails",
      input: { type: "object", properties: {} },
      run: () => {
        throw new Error("kaput");
      },
    });
    const m = await runPlan(
      plan([
        { id: "a", tool: "echo", args: { value: 1 }, store_as: "a" },
        {
          id: "s",
          tool: "echo",
          depends_on: ["a"],
          when: "ctx.artifacts.a > 5",
          args: { value: 2 },
          store_as: "s",
        },
        { id: "f", tool: "boom", depends_on: ["a"], store_as: "f" },
        { id: "g", tool: "echo", depends_on: ["f"], args: { value: 3 }, store_as: "g" },
        { id: "h", tool: "echo", depends_on: ["g"], args: { value: 4 }, store_as: "h" },
      ]),
      { tools: [echo, boom] },
    );
    expect(m.status).toBe("failed");
    expect(m.nodes.s!.status).toBe("skipped");
    expect(m.nodes.f!.status).toBe("error");
    expect(m.nodes.f!.errors[0]!.message).toContain("kaput");
    expect(m.nodes.g!.status).toBe("blocked");
    expect(m.nodes.h!.status).toBe("blocked");
    expect(m.artifacts).not.toHaveProperty("g");
  });

  it("retries with backoff until an attempt succeeds", async () => {
    const attempts: number[] = [];
    const flaky = defineTool({
      name: "flaky",
      description: "fails twice",
      input: { type: "object", properties: {} },
      run: (_args, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error(`attempt ${ctx.attempt}`);
        return ctx.idempotencyKey;
      },
    });
    const m = await runPlan(
      plan([{ id: "f", tool: "flaky", store_as: "f", retry: { max_attempts: 3, backoff_seconds: 0.001 } }]),
      { tools: [flaky], runId: "run1" },
    );
    expect(m.status).toBe("completed");
    expect(attempts).toEqual([1, 2, 3]);
    expect(m.artifacts.f).toBe("run1/f");
    expect(m.nodes.f!.attempts).toBe(3);
  });

  it("aborts a tool through its signal when the node times out", async () => {
    let sawAbort = false;
    const hang = defineTool({
      name: "hang",
      description: "waits for abort",
      input: { type: "object", properties: {} },
      run: (_a, { signal }) =>
        new Promise((_r, reject) =>
          signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("aborted"));
          }),
        ),
    });
    const m = await runPlan(plan([{ id: "h", tool: "hang", store_as: "h", timeout: 0.05 }]), {
      tools: [hang],
    });
    expect(m.status).toBe("failed");
    expect(m.nodes.h!.errors[0]!.code).toBe("TIMEOUT");
    expect(sawAbort).toBe(true);
  });

  it("cancels the run at execution_timeout", async () => {
    const hang = defineTool({
      name: "hang",
      description: "never ends by itself",
      input: { type: "object", properties: {} },
      run: (_a, { signal }) =>
        new Promise((_r, reject) => signal.addEventListener("abort", () => reject(new Error("stop")))),
    });
    const m = await runPlan(
      plan(
        [
          { id: "h", tool: "hang", store_as: "h" },
          { id: "after", tool: "echo", depends_on: ["h"], args: { value: 1 }, store_as: "after" },
        ],
        {
          execution_timeout: 0.05,
        },
      ),
      { tools: [hang, echo] },
    );
    expect(m.status).toBe("cancelled");
    expect(m.error?.code).toBe("RUN_TIMEOUT");
    expect(m.nodes.after!.status).not.toBe("ok");
  });
});

describe("for_each", () => {
  const source = {
    id: "src",
    tool: "echo",
    args: { value: { alerts: [{ id: "a0" }, { id: "a1" }, { id: "a2" }, { id: "a3" }, { id: "a4" }] } },
    store_as: "src",
  };

  it("fans out over a select path with the alias honoured and bounded concurrency", async () => {
    let inFlight = 0;
    let peak = 0;
    const work = defineTool({
      name: "work",
      description: "per item",
      input: z.object({ id: z.string(), n: z.number() }),
      run: async ({ id, n }) => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return `${id}#${n}`;
      },
    });
    const m = await runPlan(
      plan([
        source,
        {
          id: "each",
          tool: "work",
          depends_on: ["src"],
          args: { id: "{alert.id}", n: "{index}" },
          store_as: "done_{alert.id}",
          for_each: { source: "{artifacts.src}", select: "alerts[]", as: "alert", max_concurrency: 2 },
        },
      ]),
      { tools: [echo, work] },
    );
    expect(m.status).toBe("completed");
    expect(peak).toBe(2);
    expect(m.nodes.each!.items).toMatchObject({ total: 5, ok: 5, error: 0 });
    expect(m.artifacts.done_a3).toBe("a3#3");
    expect(m.nodes.each!.storedKeys).toEqual(["done_a0", "done_a1", "done_a2", "done_a3", "done_a4"]);
  });

  const failOdd = defineTool({
    name: "fail_odd",
    description: "fails on odd indexes",
    input: z.object({ i: z.number() }),
    run: async ({ i }) => {
      await new Promise((r) => setTimeout(r, 1));
      if (i % 2 === 1) throw new Error(`odd ${i}`);
      return i;
    },
  });
  const each = (onItemError: string, extra: object = {}) => ({
    id: "each",
    tool: "fail_odd",
    depends_on: ["src"],
    args: { i: "{index}" },
    store_as: "r_{index}",
    for_each: {
      source: "{artifacts.src}",
      select: "alerts",
      on_item_error: onItemError,
      max_concurrency: 1,
      ...extra,
    },
  });

  it("collects item errors into a partial node", async () => {
    const m = await runPlan(plan([source, each("collect")]), { tools: [echo, failOdd] });
    expect(m.status).toBe("partial");
    expect(m.nodes.each!.status).toBe("partial");
    expect(m.nodes.each!.items).toMatchObject({ ok: 3, error: 2 });
    expect(m.nodes.each!.errors.map((e) => e.item)).toEqual([1, 3]);
  });

  it("stops at the first failing item with on_item_error fail", async () => {
    const m = await runPlan(plan([source, each("fail")]), { tools: [echo, failOdd] });
    expect(m.nodes.each!.status).toBe("error");
    expect(m.nodes.each!.items).toMatchObject({ ok: 1, error: 1 });
    expect(m.artifacts).not.toHaveProperty("r_2");
  });

  it("skips failing items with on_item_error skip", async () => {
    const m = await runPlan(plan([source, each("skip")]), { tools: [echo, failOdd] });
    expect(m.status).toBe("completed");
    expect(m.nodes.each!.items).toMatchObject({ ok: 3, skipped: 2 });
  });

  it("fails, never truncates, above max_items", async () => {
    const m = await runPlan(plan([source, each("collect", { max_items: 4 })]), { tools: [echo, failOdd] });
    expect(m.nodes.each!.status).toBe("error");
    expect(m.nodes.each!.errors[0]!.code).toBe("FOR_EACH_TOO_MANY");
    expect(Object.keys(m.artifacts).filter((k) => k.startsWith("r_"))).toEqual([]);
  });

  it("does not dispatch items whose key is already stored (skip_existing)", async () => {
    const seen: number[] = [];
    const record = defineTool({
      name: "record",
      description: "records",
      input: z.object({ i: z.number() }),
      run: ({ i }) => seen.push(i),
    });
    const m = await runPlan(plan([source, { ...each("collect"), tool: "record" }]), {
      tools: [echo, record],
      artifacts: { r_0: "old", r_2: "old" },
    });
    expect(seen).toEqual([1, 3, 4]);
    expect(m.nodes.each!.items).toMatchObject({ ok: 5, reused: 2 });
    expect(m.artifacts.r_0).toBe("old");
  });
});

describe("resumeRun", () => {
  it("re-runs only what did not complete, and refuses a changed plan", async () => {
    const store = new MemoryRunStore();
    const calls: string[] = [];
    let healthy = false;
    const step = defineTool({
      name: "step",
      description: "counts calls",
      input: z.object({ name: z.string() }),
      run: ({ name }) => {
        calls.push(name);
        if (name === "b" && !healthy) throw new Error("not yet");
        return name;
      },
    });
    const p = plan([
      { id: "a", tool: "step", args: { name: "a" }, store_as: "a" },
      { id: "b", tool: "step", depends_on: ["a"], args: { name: "b" }, store_as: "b" },
      { id: "c", tool: "step", depends_on: ["b"], args: { name: "c" }, store_as: "c" },
    ]);
    const first = await runPlan(p, { tools: [step], store });
    expect(first.status).toBe("failed");
    expect(first.nodes.c!.status).toBe("blocked");
    healthy = true;
    await expect(
      resumeRun(first.runId, { tools: [step], store, plan: { ...p, name: "changed" } }),
    ).rejects.toMatchObject({
      code: "PLAN_FINGERPRINT_CHANGED",
    });
    const second = await resumeRun(first.runId, { tools: [step], store, plan: p });
    expect(second.status).toBe("completed");
    expect(calls).toEqual(["a", "b", "b", "c"]);
    expect(second.artifacts).toEqual({ a: "a", b: "b", c: "c" });
  });
});
