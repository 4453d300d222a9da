import { describe, expect, it } from "vitest";
import { buildManifest } from "./run-manifest.js";
import type { StoredRun } from "../store/run-state.js";

const stored = (): StoredRun => ({
  run: {
    runId: "r",
    planName: "p",
    fingerprint: "f",
    plan: {},
    status: "partial",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:01.000Z",
    options: { version: 1 },
  },
  artifacts: { a: 1, b_0: "x" },
  nodes: {
    a: {
      status: "ok",
      storedKeys: ["a"],
      attempts: 2,
      details: { spend: { calls: 1, tokens: 10, cost: 0.1, duration: 0.5 } },
    },
    b: {
      status: "partial",
      storedKeys: ["b_0"],
      attempts: 1,
      items: { total: 3, ok: 1, error: 1, skipped: 0, escalated: 1, reused: 0 },
    },
  },
  items: {
    b: {
      0: {
        index: 0,
        status: "ok",
        key: "b_0",
        details: { spend: { calls: 0, tokens: 5, cost: 0.2, duration: 0.25 } },
      },
      1: {
        index: 1,
        status: "error",
        error: { code: "E", message: "boom" },
        details: { spend: { calls: 2, tokens: 7, cost: 0.1, duration: 1 } },
      },
      2: {
        index: 2,
        status: "escalated",
        escalation: {
          nodeId: "b",
          item: 2,
          verdict: "low_confidence",
          reason: "0.2 < 0.8",
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      },
    },
  },
});

describe("run manifests", () => {
  it("list every plan node in plan order, unrun ones as pending, and count statuses", () => {
    const m = buildManifest(stored(), [
      { id: "a" },
      { id: "b", type: "agent" },
      { id: "c", type: "delegate" },
    ]);
    expect(Object.keys(m.nodes)).toEqual(["a", "b", "c"]);
    expect(m.nodes.c).toMatchObject({ type: "delegate", status: "pending", storedKeys: [], attempts: 0 });
    expect(m.nodes.a!.type).toBe("tool");
    expect(m.counts).toMatchObject({ ok: 1, partial: 1, pending: 1, error: 0 });
    expect(m).toMatchObject({ runId: "r", plan: "p", status: "partial", artifacts: { a: 1, b_0: "x" } });
  });

  it("gather item errors and open escalations, and sum spend over the node and its items", () => {
    const m = buildManifest(stored(), [{ id: "a" }, { id: "b" }]);
    expect(m.nodes.b!.errors).toEqual([{ code: "E", message: "boom", item: 1 }]);
    expect(m.nodes.b!.escalations.map((e) => e.item)).toEqual([2]);
    expect(m.nodes.b!.spend).toEqual({ calls: 2, tokens: 12, cost: 0.3, duration: 1.25 });
    expect(m.nodes.a!.spend).toEqual({ calls: 1, tokens: 10, cost: 0.1, duration: 0.5 });
    expect(Object.keys(m.nodes.b!.itemDetails!)).toEqual(["0", "1"]);
  });

  it("drop an escalation once its item was resolved and ran", () => {
    const s = stored();
    s.items.b![2] = { ...s.items.b![2]!, status: "ok", key: "b_2" };
    expect(buildManifest(s, [{ id: "b" }]).nodes.b!.escalations).toEqual([]);
  });
});
