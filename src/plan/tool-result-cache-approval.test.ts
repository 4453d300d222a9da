import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resumeRun, runPlan } from "../compose/index.js";
import { resolveEscalation } from "../delegate/escalation/resolve-escalation.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool } from "../tools/define-tool.js";

/** A read-only, cached lookup whose calls wait for a person when `approve` says so; it counts its calls. */
function lookup(needsApproval: boolean) {
  const calls: string[] = [];
  const tool = defineTool({
    name: "lookup",
    description: "Looks a customer's record up (read-only)",
    input: z.object({ q: z.string() }),
    delegateSafe: true,
    cache: { ttl: 600 },
    needsApproval,
    run: ({ q }) => (calls.push(q), { customer: q.toUpperCase() }),
  });
  return { tool, calls };
}

const plan = (requireApproval = false) => ({
  name: "cached-approval",
  nodes: [
    {
      id: "find",
      tool: "lookup",
      args: { q: "x" },
      store_as: "found",
      ...(requireApproval ? { require_approval: true } : {}),
    },
  ],
});

function sqlite(): SqliteRunStore {
  return new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-cache-approval-")), "runs.db"));
}

describe("cached tool results and approval", () => {
  it("a cached call that needs approval still waits for it; once approved it may be answered from the cache", async () => {
    const store = sqlite();
    try {
      const { tool, calls } = lookup(true);
      const first = await runPlan(plan(), { tools: [tool], store });
      expect(first.status).toBe("escalated");
      expect(calls).toEqual([]);
      await resolveEscalation(store, first.runId, "find", { approve: true, by: "Ada" });
      const ran = await resumeRun(first.runId, { tools: [tool], store });
      expect(ran.status).toBe("completed");
      expect(calls).toEqual(["x"]);
      expect(ran.nodes.find!.details).toMatchObject({ approval: "approved", decidedBy: "Ada" });

      // The same call in a new run: its result is in the cache, and still the call waits for a person first.
      const second = await runPlan(plan(), { tools: [tool], store });
      expect(second.status).toBe("escalated");
      expect(second.nodes.find!.escalations.map((e) => [e.kind, e.call])).toEqual([
        ["approval", { name: "lookup", arguments: { q: "x" } }],
      ]);
      await resolveEscalation(store, second.runId, "find", { approve: true, by: "Bo" });
      const reused = await resumeRun(second.runId, { tools: [tool], store });
      expect(reused.artifacts.found).toEqual({ customer: "X" });
      expect(reused.nodes.find!.details).toEqual({ approval: "approved", decidedBy: "Bo", cached: true });
      expect(calls).toEqual(["x"]);
    } finally {
      await store.close();
    }
  });

  it("a node's require_approval is asked before a result another run cached; a rejection reads no cache", async () => {
    const store = sqlite();
    try {
      const { tool, calls } = lookup(false);
      expect((await runPlan(plan(), { tools: [tool], store })).status).toBe("completed");
      expect(calls).toEqual(["x"]);
      const gated = await runPlan(plan(true), { tools: [tool], store });
      expect(gated.status).toBe("escalated");
      expect(gated.artifacts.found).toBeUndefined();
      await resolveEscalation(store, gated.runId, "find", { reject: true, reason: "not now" });
      const rejected = await resumeRun(gated.runId, { tools: [tool], store });
      expect(rejected.nodes.find!.status).toBe("error");
      expect(rejected.nodes.find!.errors).toEqual([expect.objectContaining({ code: "TOOL_CALL_REJECTED" })]);
      expect(rejected.artifacts.found).toBeUndefined();
      expect(calls).toEqual(["x"]);
    } finally {
      await store.close();
    }
  });
});
