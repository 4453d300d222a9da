import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approveRepair } from "../../authoring/repair-decisions.js";
import { repairRun } from "../../authoring/repair-run.js";
import { scriptedModel } from "../../authoring/scripted-model.js";
import { runPlan } from "../../compose/index.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import { defineTool } from "../../tools/define-tool.js";
import { lineageOf, parseRepairDecision, repairInbox } from "./repair-view.js";

const tools = [
  defineTool({
    name: "fetch_v1",
    description: "Old fetch",
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => {
      throw new Error("fetch_v1 is gone, use fetch_v2 (token sk-live0123456789abcdefghijkl)");
    },
  }),
  defineTool({
    name: "fetch_v2",
    description: "Fetch",
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }: { url: string }) => url,
  }),
];
const plan = {
  name: "p",
  nodes: [{ id: "fetch", tool: "fetch_v1", args: { url: "http://a" }, store_as: "page" }],
};
const delta = (url: string) => ({
  nodes: [{ id: "fetch", tool: "fetch_v2", args: { url }, store_as: "page" }],
});

async function failedWithRepair(store: MemoryRunStore, url: string) {
  const run = await runPlan(plan, { tools, store });
  await repairRun(store, run.runId, { tools, model: await scriptedModel([JSON.stringify(delta(url))]) });
  return run.runId;
}

describe("the console's view of repairs", () => {
  it("lists pending repairs with the failed nodes and the diff, redacted; an applied one leaves the inbox for the lineage", async () => {
    const store = new MemoryRunStore();
    const a = await failedWithRepair(store, "http://b");
    const b = await failedWithRepair(store, "Bearer sk-live0123456789abcdefghijkl");
    const entries = await repairInbox(store);
    expect(entries.map((e) => e.runId).sort()).toEqual([a, b].sort());
    const first = entries.find((e) => e.runId === a)!;
    expect(first).toMatchObject({ planName: "p", runStatus: "failed", repairId: "r1", round: 1 });
    expect(first.failed).toEqual([
      { nodeId: "fetch", status: "error", error: expect.stringContaining("gone") },
    ]);
    expect(first.diffText).toContain('tool: "fetch_v1" → "fetch_v2"');
    // A secret in the model's delta or in a node's error never reaches the page.
    const text = JSON.stringify(entries);
    expect(text).not.toContain("sk-live0123456789abcdefghijkl");
    expect(await repairInbox(store, { runId: b })).toHaveLength(1);

    const { childRunId } = await approveRepair(store, a, { by: "Ada" });
    expect((await repairInbox(store)).map((e) => e.runId)).toEqual([b]);
    const parent = (await store.loadSummary(a))!.run;
    expect(lineageOf(parent).repairs).toEqual([
      { id: "r1", status: "applied", createdAt: expect.any(String), childRunId, decidedBy: "Ada" },
    ]);
    expect(lineageOf((await store.loadSummary(childRunId))!.run)).toEqual({
      parentRunId: a,
      rootRunId: a,
      repairs: [],
    });
  });

  it("takes a decision body of `by` (and `reason` to reject) only, and nothing else", () => {
    expect(parseRepairDecision({ by: " Ada " }, "approve")).toEqual({ by: "Ada" });
    expect(parseRepairDecision({ by: "Ada", reason: "no" }, "reject")).toEqual({ by: "Ada", reason: "no" });
    expect(parseRepairDecision({}, "approve")).toEqual({});
    for (const bad of [null, [], "x", { reason: "no" }, { by: 1 }, { by: "x".repeat(201) }, { plan: {} }])
      expect(() => parseRepairDecision(bad, "approve"), JSON.stringify(bad)).toThrow();
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        try {
          const decision = parseRepairDecision(body, "reject");
          expect(Object.keys(decision).every((k) => k === "by" || k === "reason")).toBe(true);
        } catch (error) {
          expect((error as { code?: string }).code).toBe("INVALID_OPTION");
        }
      }),
    );
  });
});
