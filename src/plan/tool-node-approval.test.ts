import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resumeRun, runPlan } from "../compose/index.js";
import { resolveEscalation } from "../delegate/escalation/resolve-escalation.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool } from "../tools/define-tool.js";

const paid: number[] = [];
const pay = defineTool({
  name: "pay",
  description: "Pay an amount (a side effect)",
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }: { amount: number }) => amount >= 100,
  run: ({ amount }) => (paid.push(amount), { paid: amount }),
});
const list = defineTool({
  name: "list",
  description: "amounts",
  input: z.object({}),
  run: () => [5, 150, 20, 300],
});

const plan = {
  name: "pay-each",
  nodes: [
    { id: "list", tool: "list", store_as: "amounts" },
    {
      id: "pay",
      tool: "pay",
      depends_on: ["list"],
      args: { amount: "{item}" },
      store_as: "paid_{index}",
      for_each: { source: "{artifacts.amounts}", max_concurrency: 2 },
    },
  ],
};

describe("approval of a tool node's for_each items", () => {
  it("pauses only the items whose call needs approval; each is decided by its item and run once", async () => {
    const store = new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-approve-each-")), "runs.db"));
    try {
      const m = await runPlan(plan, { tools: [pay, list], store });
      expect(m.status).toBe("escalated");
      expect(paid.toSorted((a, b) => a - b)).toEqual([5, 20]);
      expect(m.nodes.pay!.escalations.map((e) => [e.item, e.kind, e.call])).toEqual([
        [1, "approval", { name: "pay", arguments: { amount: 150 } }],
        [3, "approval", { name: "pay", arguments: { amount: 300 } }],
      ]);
      await expect(resolveEscalation(store, m.runId, "pay", { approve: true })).rejects.toThrow(
        /escalated items \(1, 3\): decide each one by its item/,
      );
      await resolveEscalation(store, m.runId, "pay", { item: 1, approve: true, by: "Ada" });
      const half = await resumeRun(m.runId, { tools: [pay, list], store });
      expect(half.status).toBe("escalated");
      expect(paid.toSorted((a, b) => a - b)).toEqual([5, 20, 150]);
      expect(half.nodes.pay!.itemDetails?.[1]).toMatchObject({ approval: "approved", decidedBy: "Ada" });

      await resolveEscalation(store, m.runId, "pay", { item: 3, reject: true, reason: "too much" });
      const done = await resumeRun(m.runId, { tools: [pay, list], store });
      expect(paid.toSorted((a, b) => a - b)).toEqual([5, 20, 150]);
      expect(done.nodes.pay!.errors).toEqual([
        expect.objectContaining({
          item: 3,
          code: "TOOL_CALL_REJECTED",
          message: expect.stringContaining("too much"),
        }),
      ]);
      // A decided item keeps its decision (as every decided item does): resumed again, it stays rejected.
      const again = await resumeRun(m.runId, { tools: [pay, list], store });
      expect(again.nodes.pay!.errors).toEqual([
        expect.objectContaining({ item: 3, code: "TOOL_CALL_REJECTED" }),
      ]);
      expect(paid.toSorted((a, b) => a - b)).toEqual([5, 20, 150]);
    } finally {
      await store.close();
    }
  });
});
