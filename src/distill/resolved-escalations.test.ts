import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../store/memory-run-store.js";
import type { Escalation } from "../store/run-state.js";
import { resolvedEscalationTraces } from "./resolved-escalations.js";

const base = {
  nodeId: "route",
  verdict: "low_confidence",
  reason: "r",
  createdAt: "2026-01-01T00:00:00.000Z",
};
const call = { name: "page", arguments: { service: "checkout" } };

async function storeWith(escalations: Escalation[]) {
  const store = new MemoryRunStore();
  await store.createRun({
    runId: "r",
    planName: "p",
    fingerprint: "f",
    // The plan says something else on purpose: the traces come from the records, never from the plan.
    plan: { name: "p", nodes: [{ id: "route", type: "delegate", instruction: "NOT THIS", tools: ["x"] }] },
    status: "escalated",
    createdAt: base.createdAt,
    updatedAt: base.createdAt,
    options: { version: 1 },
  });
  await store.write(
    "r",
    escalations.map((escalation, index) => ({
      kind: "item",
      nodeId: "route",
      item: { index, status: "escalated", escalation: { ...escalation, item: index } },
    })),
  );
  return store;
}

describe("resolved escalations as traces", () => {
  it("takes the input and candidate tools from each escalation record", async () => {
    const store = await storeWith([
      {
        ...base,
        instruction: "Route: checkout down",
        facts: { service: "checkout" },
        tools: [{ name: "page", description: "Page on-call", parameters: { type: "object" } }],
        resolution: { kind: "call", call, by: "Ada" },
      },
      { ...base, instruction: "Route: slow search", facts: {}, tools: [], resolution: { kind: "skip" } },
      { ...base, instruction: "Route: later", resolution: { kind: "value", value: 1 } },
      { ...base, instruction: "Route: open" },
    ]);
    const found = await resolvedEscalationTraces(store, "route");
    expect(found).toMatchObject({ runs: 1, unresolved: 1, values: 1 });
    expect(found.unrecorded).toBeUndefined();
    expect(found.traces.map((t) => [t.item, t.instruction, t.verdict])).toEqual([
      [0, "Route: checkout down", "accepted"],
      [1, "Route: slow search", "declined"],
    ]);
    expect(found.traces[0]).toMatchObject({
      facts: { service: "checkout" },
      tools: [{ name: "page", description: "Page on-call", parameters: { type: "object" } }],
      finalCall: call,
      source: "person",
    });
    // A module's spec of the same name replaces the recorded one (the recorded schema may have been redacted).
    const live = { name: "page", description: "live", parameters: { type: "object", properties: {} } };
    const withLive = await resolvedEscalationTraces(store, "route", async () => [live]);
    expect(withLive.traces[0]!.tools).toEqual([live]);
  });

  it("counts, and leaves out, resolved escalations stored before escalations kept their input", async () => {
    const store = await storeWith([
      { ...base, resolution: { kind: "call", call } },
      { ...base, instruction: "Route: kept", resolution: { kind: "skip" } },
    ]);
    const found = await resolvedEscalationTraces(store, "route");
    expect(found).toMatchObject({ runs: 1, unresolved: 0, values: 0, unrecorded: 1 });
    expect(found.traces.map((t) => t.instruction)).toEqual(["Route: kept"]);
  });

  it("learns nothing from an approval: a yes or no to a call the gate accepted is no label of the delegate's choice", async () => {
    const approval = {
      ...base,
      kind: "approval" as const,
      verdict: "approval_required",
      call,
      instruction: "Route",
    };
    const store = await storeWith([
      { ...approval, resolution: { kind: "approve", by: "Ada" } },
      { ...approval, resolution: { kind: "reject", reason: "no" } },
      { ...approval },
    ]);
    const found = await resolvedEscalationTraces(store, "route");
    expect(found.traces).toEqual([]);
    expect(found).toMatchObject({ runs: 1, unresolved: 0, values: 0 });
  });
});
