import { describe, expect, it } from "vitest";
import type { RunRecord, RunStore } from "../src/plan/index.js";

function record(runId: string, createdAt: string): RunRecord {
  return {
    runId,
    planName: "p",
    fingerprint: "f",
    plan: { name: "p", nodes: [{ id: "a" }] },
    status: "running",
    createdAt,
    updatedAt: createdAt,
    options: { tools: "tools.mjs" },
  };
}

/** The conformance suite every RunStore implementation passes. `reopen` returns a store over the same data. */
export function runStoreSuite(name: string, make: () => { store: RunStore; reopen?: () => RunStore }) {
  describe(`RunStore conformance: ${name}`, () => {
    it("round-trips a run's header, artifacts, nodes and items", async () => {
      const { store } = make();
      await store.createRun(record("r1", "2026-01-01T00:00:00.000Z"));
      await store.write("r1", [
        { kind: "artifact", key: "a", value: { list: [1, 2], s: "x" } },
        { kind: "node", nodeId: "a", record: { status: "ok", storedKeys: ["a"], attempts: 1 } },
        { kind: "item", nodeId: "b", item: { index: 3, status: "ok", key: "b_3" }, value: [3, "three"] },
        {
          kind: "item",
          nodeId: "b",
          item: { index: 1, status: "error", error: { code: "E", message: "m" } },
        },
        { kind: "status", status: "partial", updatedAt: "2026-01-01T00:00:01.000Z" },
      ]);
      const loaded = await store.load("r1");
      expect(loaded!.run).toMatchObject({
        runId: "r1",
        status: "partial",
        plan: { name: "p" },
        options: { tools: "tools.mjs" },
      });
      expect(loaded!.artifacts).toEqual({ a: { list: [1, 2], s: "x" }, b_3: [3, "three"] });
      expect(loaded!.nodes.a!.storedKeys).toEqual(["a"]);
      expect(loaded!.items.b![3]!.key).toBe("b_3");
      expect(loaded!.items.b![1]!.error!.code).toBe("E");
      expect(await store.load("missing")).toBeUndefined();
      await store.close();
    });

    it("refuses a second run with the same id", async () => {
      const { store } = make();
      await store.createRun(record("dup", "2026-01-01T00:00:00.000Z"));
      await expect(store.createRun(record("dup", "2026-01-01T00:00:00.000Z"))).rejects.toMatchObject({
        code: "RUN_EXISTS",
      });
      await store.close();
    });

    it("records a resolution on the escalated node or item", async () => {
      const { store } = make();
      await store.createRun(record("r2", "2026-01-01T00:00:00.000Z"));
      const escalation = {
        nodeId: "t",
        verdict: "low_confidence",
        reason: "0.2 < 0.8",
        createdAt: "2026-01-01T00:00:00.000Z",
      };
      await store.write("r2", [
        {
          kind: "node",
          nodeId: "t",
          record: { status: "escalated", storedKeys: [], attempts: 1, escalation },
        },
        {
          kind: "item",
          nodeId: "u",
          item: { index: 2, status: "escalated", escalation: { ...escalation, nodeId: "u", item: 2 } },
        },
      ]);
      await store.write("r2", [
        { kind: "resolution", nodeId: "t", resolution: { kind: "skip" } },
        { kind: "resolution", nodeId: "u", item: 2, resolution: { kind: "value", value: 42 } },
      ]);
      const loaded = await store.load("r2");
      expect(loaded!.nodes.t!.escalation!.resolution).toEqual({ kind: "skip" });
      expect(loaded!.items.u![2]!.escalation!.resolution).toEqual({ kind: "value", value: 42 });
      await store.close();
    });

    it("lists runs newest first", async () => {
      const { store } = make();
      await store.createRun(record("old", "2026-01-01T00:00:00.000Z"));
      await store.createRun(record("new", "2026-02-01T00:00:00.000Z"));
      expect((await store.list()).map((r) => r.runId)).toEqual(["new", "old"]);
      expect((await store.list({ limit: 1 })).map((r) => r.runId)).toEqual(["new"]);
      await store.close();
    });

    it("keeps every one of many concurrent writes", async () => {
      const { store, reopen } = make();
      await store.createRun(record("many", "2026-01-01T00:00:00.000Z"));
      await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          store.write("many", [
            { kind: "artifact", key: `k${i}`, value: i },
            { kind: "item", nodeId: "n", item: { index: i, status: "ok", key: `k${i}` } },
          ]),
        ),
      );
      const again = reopen ? (await store.close(), reopen()) : store;
      const loaded = await again.load("many");
      expect(Object.keys(loaded!.artifacts)).toHaveLength(500);
      expect(Object.keys(loaded!.items.n!)).toHaveLength(500);
      expect(loaded!.artifacts.k499).toBe(499);
      await again.close();
    });

    it("knows no run it was not given: load is undefined, a write is refused with RUN_NOT_FOUND", async () => {
      const { store } = make();
      expect(await store.load("nobody")).toBeUndefined();
      await expect(store.write("nobody", [{ kind: "artifact", key: "a", value: 1 }])).rejects.toMatchObject({
        code: "RUN_NOT_FOUND",
      });
      await store.createRun(record("somebody", "2026-01-01T00:00:00.000Z"));
      expect(await store.load("nobody")).toBeUndefined();
      expect((await store.list()).map((r) => r.runId)).toEqual(["somebody"]);
      await store.close();
    });

    it("refuses every call after close (as a rejected promise, STORE_CLOSED); close is idempotent", async () => {
      const { store } = make();
      await store.createRun(record("c", "2026-01-01T00:00:00.000Z"));
      await store.close();
      await store.close();
      const calls: [string, () => Promise<unknown>][] = [
        ["write", () => store.write("c", [{ kind: "artifact", key: "late", value: 1 }])],
        ["load", () => store.load("c")],
        ["list", () => store.list()],
        ["createRun", () => store.createRun(record("d", "2026-01-01T00:00:00.000Z"))],
      ];
      for (const [name, call] of calls) {
        let promise: Promise<unknown> | undefined;
        expect(() => (promise = call()), `${name} throws instead of rejecting`).not.toThrow();
        await expect(promise, name).rejects.toMatchObject({ code: "STORE_CLOSED" });
      }
    });

    it("hands out snapshots: a loaded run is not changed by later writes, and changing it changes nothing", async () => {
      const { store } = make();
      await store.createRun(record("snap", "2026-01-01T00:00:00.000Z"));
      await store.write("snap", [
        { kind: "artifact", key: "a", value: { list: [1] } },
        { kind: "node", nodeId: "n", record: { status: "ok", storedKeys: ["a"], attempts: 1 } },
      ]);
      const first = (await store.load("snap"))!;
      await store.write("snap", [
        { kind: "artifact", key: "b", value: 2 },
        { kind: "node", nodeId: "n", record: { status: "error", storedKeys: [], attempts: 2 } },
        { kind: "status", status: "failed", updatedAt: "2026-01-01T00:00:01.000Z" },
      ]);
      expect(first.artifacts).toEqual({ a: { list: [1] } });
      expect(first.nodes.n!.status).toBe("ok");
      expect(first.run.status).toBe("running");

      (first.artifacts.a as { list: number[] }).list.push(99);
      first.artifacts.injected = true;
      first.nodes.n!.status = "skipped";
      first.run.status = "completed";
      const second = (await store.load("snap"))!;
      expect(second.artifacts).toEqual({ a: { list: [1] }, b: 2 });
      expect(second.nodes.n).toMatchObject({ status: "error", attempts: 2 });
      expect(second.run.status).toBe("failed");
      await store.close();
    });
  });
}
