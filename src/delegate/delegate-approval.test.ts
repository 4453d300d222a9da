/**
 * The double key and approval together: a delegate's call that the gate accepted (both side-effect keys turned)
 * still waits for a person when its tool requires approval; approve runs exactly that call once (traced as the
 * person's hop), reject never runs it.
 */
import { describe, expect, it } from "vitest";
import { resumeRun, runPlan } from "../compose/index.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import type { DelegateTrace, TraceSink } from "../traces/trace.js";
import { resolveEscalation } from "./escalation/resolve-escalation.js";
import { routerTool } from "./router-tool.js";
import { ScriptedDelegate, type ScriptedEntry } from "./scripted-delegate.js";

const calls: unknown[] = [];
const refund = defineTool({
  name: "refund",
  description: "Refund an order (a side effect)",
  input: {
    type: "object",
    properties: { order: { type: "string" }, amount: { type: "number" }, token: { type: "string" } },
    required: ["order", "amount"],
  },
  sensitive: ["token"],
  needsApproval: ({ amount }: { amount: number }) => amount > 50,
  run: (args) => (calls.push(args), { refunded: args.order }),
});

const sink: TraceSink & { traces: DelegateTrace[] } = {
  traces: [],
  write(trace) {
    this.traces.push(trace);
  },
};

const plan = {
  name: "refunds",
  nodes: [
    {
      id: "d",
      type: "delegate",
      instruction: "Refund order {inputs.order}",
      tools: ["refund"],
      allow_side_effects: true,
      on_reject: "escalate",
      store_as: "out",
    },
  ],
  inputs: { order: { type: "string" } },
};

async function start(args: Record<string, unknown>) {
  const store = new MemoryRunStore();
  calls.length = 0;
  sink.traces.length = 0;
  const delegates = [
    new ScriptedDelegate({
      entries: [
        { node: "d", proposal: { name: "refund", arguments: args, confidence: 0.99 } } as ScriptedEntry,
      ],
    }),
  ];
  const options = { store, tools: [refund], delegates, traceSink: sink, allowDelegateSideEffects: true };
  const manifest = await runPlan(plan, { ...options, inputs: { order: "A1" } });
  return { manifest, store, options };
}

describe("a delegate's accepted call of a tool that requires approval", () => {
  it("runs at once when the tool's rule says no approval is needed for these arguments", async () => {
    const { manifest } = await start({ order: "A1", amount: 5 });
    expect(manifest.status).toBe("completed");
    expect(calls).toEqual([{ order: "A1", amount: 5 }]);
  });

  it("pauses after the gate accepted it; approve runs exactly that call once, traced as the person's", async () => {
    const { manifest, store, options } = await start({ order: "A1", amount: 80 });
    expect(manifest.status).toBe("escalated");
    expect(calls).toEqual([]);
    expect(manifest.nodes.d!.escalations[0]).toMatchObject({
      kind: "approval",
      verdict: "approval_required",
      call: { name: "refund", arguments: { order: "A1", amount: 80 } },
      instruction: "Refund order A1",
    });
    expect(sink.traces.map((t) => [t.source, t.verdict])).toEqual([["delegate", "accepted"]]);
    await expect(
      resolveEscalation(store, manifest.runId, "d", { call: { name: "refund", arguments: {} } }),
    ).rejects.toThrow(/waits for approval of its call to "refund"/);

    await resolveEscalation(store, manifest.runId, "d", { approve: true, by: "Ada" });
    const done = await resumeRun(manifest.runId, options);
    expect(done.status).toBe("completed");
    expect(calls).toEqual([{ order: "A1", amount: 80 }]);
    expect(done.nodes.d!.details).toMatchObject({
      approval: "approved",
      decidedBy: "Ada",
      resolvedBy: "person",
    });
    expect(sink.traces.at(-1)).toMatchObject({
      source: "person",
      backend: "person:Ada",
      verdict: "accepted",
      finalCall: { name: "refund", arguments: { order: "A1", amount: 80 } },
    });
    // Resuming again runs nothing twice.
    await resumeRun(manifest.runId, options);
    expect(calls).toHaveLength(1);
  });

  it("reject never runs it: the node fails with the person's reason", async () => {
    const { manifest, store, options } = await start({ order: "A1", amount: 80 });
    await resolveEscalation(store, manifest.runId, "d", {
      reject: true,
      reason: "already refunded",
      by: "Bo",
    });
    const done = await resumeRun(manifest.runId, options);
    expect(done.status).toBe("failed");
    expect(calls).toEqual([]);
    expect(done.nodes.d!.errors[0]).toMatchObject({ code: "TOOL_CALL_REJECTED" });
    expect(done.nodes.d!.errors[0]!.message).toContain("already refunded");
    expect(done.nodes.d!.details).toMatchObject({
      approval: "rejected",
      decidedBy: "Bo",
      reason: "already refunded",
    });
  });

  it("a call shown with a redacted value cannot be replayed: it pauses again for a full call", async () => {
    const { manifest, store, options } = await start({ order: "A1", amount: 80, token: "tok-9f8e7d" });
    expect(JSON.stringify(manifest)).not.toContain("tok-9f8e7d");
    await resolveEscalation(store, manifest.runId, "d", { approve: true });
    const again = await resumeRun(manifest.runId, options);
    expect(again.status).toBe("escalated");
    expect(calls).toEqual([]);
    const esc = again.nodes.d!.escalations[0]!;
    expect(esc.kind).toBeUndefined();
    expect(esc.reason).toMatch(/stored with redacted values/);
    // A person's full call is itself the approval: it runs without asking again.
    await resolveEscalation(store, manifest.runId, "d", {
      call: { name: "refund", arguments: { order: "A1", amount: 80, token: "tok-9f8e7d" } },
    });
    const done = await resumeRun(manifest.runId, options);
    expect(done.status).toBe("completed");
    expect(calls).toEqual([{ order: "A1", amount: 80, token: "tok-9f8e7d" }]);
  });

  it("a router tool (inside an agent's call, which cannot pause) refuses it and never runs it", async () => {
    calls.length = 0;
    const delegate = new ScriptedDelegate({
      entries: [
        {
          node: "quick",
          proposal: { name: "refund", arguments: { order: "A1", amount: 80 }, confidence: 0.99 },
        },
      ],
    });
    const route = routerTool({ name: "quick", delegate, tools: [refund], allowSideEffects: true });
    const ctx = {
      signal: new AbortController().signal,
      idempotencyKey: "k",
      runId: "r",
      nodeId: "n",
      attempt: 1,
    };
    expect(await route.run({ request: "refund A1" }, ctx)).toMatchObject({
      error: "approval_required",
      tool: "refund",
    });
    expect(calls).toEqual([]);
  });
});
