import { describe, expect, it } from "vitest";
import type { RunMutation, RunRecord, RunStore } from "../src/plan/index.js";
import { PROTO_NAMES } from "./prototype-names.js";

function record(runId: string, createdAt: string): RunRecord {
  return {
    runId,
    planName: "p",
    fingerprint: "f",
    plan: { name: "p", nodes: [{ id: "a" }] },
    status: "running",
    createdAt,
    updatedAt: createdAt,
    options: {
      version: 1,
      tools: "tools.mjs",
      delegates: ["scripted:p.jsonl"],
      inputs: { queue: "billing" },
    },
  };
}

/** A store to test, and (for durable stores) how to open another one over the same data. */
export interface StoreUnderTest {
  store: RunStore;
  reopen?: () => RunStore;
  /** For durable stores: overwrites a run's stored options as given (what an older deputy wrote). */
  setStoredOptions?: (runId: string, options: unknown) => Promise<void>;
}

/** The conformance suite every RunStore implementation passes. `reopen` returns a store over the same data. */
export function runStoreSuite(name: string, make: () => StoreUnderTest | Promise<StoreUnderTest>) {
  describe(`RunStore conformance: ${name}`, () => {
    it("round-trips a run's header, artifacts, nodes and items", async () => {
      const { store } = await make();
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
      });
      // The options record round-trips whole and typed (see run-options-record.ts).
      expect(loaded!.run.options).toEqual(record("r1", "").options);
      expect(loaded!.artifacts).toEqual({ a: { list: [1, 2], s: "x" }, b_3: [3, "three"] });
      expect(loaded!.nodes.a!.storedKeys).toEqual(["a"]);
      expect(loaded!.items.b![3]!.key).toBe("b_3");
      expect(loaded!.items.b![1]!.error!.code).toBe("E");
      expect(await store.load("missing")).toBeUndefined();
      await store.close();
    });

    it("keeps Object.prototype's names as data: run ids, node ids, artifact keys and item keys", async () => {
      const { store, reopen } = await make();
      const escalation = { verdict: "declined", reason: "r", createdAt: "2026-01-01T00:00:00.000Z" };
      for (const runId of PROTO_NAMES) {
        await store.createRun(record(runId, "2026-01-01T00:00:00.000Z"));
        await store.write(runId, [
          // Node-level artifacts keyed by every name; the items of the node named like the run store the rest.
          ...PROTO_NAMES.map((key): RunMutation => ({ kind: "artifact", key, value: `artifact ${key}` })),
          ...PROTO_NAMES.map((nodeId): RunMutation => ({
            kind: "node",
            nodeId,
            record: {
              status: "escalated",
              storedKeys: [nodeId],
              attempts: 1,
              escalation: { ...escalation, nodeId },
            },
          })),
          ...PROTO_NAMES.map((name, index): RunMutation => ({
            kind: "item",
            nodeId: runId,
            item: { index, status: "ok", key: `${runId}.${name}` },
            value: `item ${name}`,
          })),
        ]);
        await store.write(runId, [{ kind: "resolution", nodeId: runId, resolution: { kind: "skip" } }]);
      }
      const empty = "empty";
      await store.createRun(record(empty, "2025-01-01T00:00:00.000Z"));
      const again = reopen ? (await store.close(), reopen()) : store;
      expect((await again.list()).map((r) => r.runId).sort()).toEqual([...PROTO_NAMES, empty].sort());
      for (const runId of PROTO_NAMES) {
        const loaded = (await again.load(runId))!;
        expect(loaded.run.runId).toBe(runId);
        for (const key of PROTO_NAMES) {
          expect(Object.hasOwn(loaded.artifacts, key), `artifact ${key} of run ${runId}`).toBe(true);
          expect(loaded.artifacts[key]).toBe(`artifact ${key}`);
          expect(loaded.artifacts[`${runId}.${key}`]).toBe(`item ${key}`);
          expect(Object.hasOwn(loaded.nodes, key), `node ${key} of run ${runId}`).toBe(true);
          expect(loaded.nodes[key]!.storedKeys).toEqual([key]);
        }
        expect(loaded.nodes[runId]!.escalation!.resolution).toEqual({ kind: "skip" });
        expect(Object.hasOwn(loaded.items, runId)).toBe(true);
        expect(Object.keys(loaded.items[runId]!)).toHaveLength(PROTO_NAMES.length);
        const summary = (await again.loadSummary(runId))!;
        for (const key of PROTO_NAMES) expect(summary.artifacts[key]).toBe(`artifact ${key}`);
        expect(summary.artifacts[`${runId}.constructor`]).toBeUndefined();
        expect(Object.keys(summary.nodes).sort()).toEqual([...PROTO_NAMES].sort());
        const page = await again.listItems(runId, runId);
        expect(page.items.map((i) => i.value)).toEqual(PROTO_NAMES.map((n) => `item ${n}`));
      }
      // Nothing stored under a name: a lookup finds nothing, never a member inherited from Object.prototype.
      const bare = (await again.load(empty))!;
      const bareSummary = (await again.loadSummary(empty))!;
      for (const maps of [bare, bareSummary])
        for (const map of [maps.artifacts, maps.nodes] as Record<string, unknown>[])
          for (const key of PROTO_NAMES) expect(map[key], key).toBeUndefined();
      for (const key of PROTO_NAMES)
        expect((bare.items as Record<string, unknown>)[key], key).toBeUndefined();
      expect(await again.listItems(empty, "constructor")).toEqual({ total: 0, counts: {}, items: [] });
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      await again.close();
    });

    it("reads an options record written before records had a version, typed", async () => {
      const { store, setStoredOptions } = await make();
      if (!setStoredOptions) return store.close(); // nothing older to read: the memory store keeps what it is given
      await store.createRun(record("old", "2026-01-01T00:00:00.000Z"));
      await setStoredOptions("old", {
        tools: "/abs/tools.mjs",
        delegates: ["llama-server:http://127.0.0.1:8080"],
        traces: "/abs/traces.jsonl",
        plan: "/abs/plan.json",
        allowDelegateSideEffects: true,
        inputs: { queue: "billing" },
        distributed: true,
        team: "ops",
      });
      const expected = {
        version: 1,
        tools: "/abs/tools.mjs",
        delegates: ["llama-server:http://127.0.0.1:8080"],
        traces: "/abs/traces.jsonl",
        plan: "/abs/plan.json",
        allowDelegateSideEffects: true,
        inputs: { queue: "billing" },
        distributed: true,
        extra: { team: "ops" },
      };
      expect((await store.load("old"))!.run.options).toEqual(expected);
      expect((await store.list())[0]!.options).toEqual(expected);
      expect((await store.loadSummary("old"))!.run.options).toEqual(expected);
      await setStoredOptions("old", {});
      expect((await store.load("old"))!.run.options).toEqual({ version: 1 });
      await store.close();
    });

    it("refuses a second run with the same id", async () => {
      const { store } = await make();
      await store.createRun(record("dup", "2026-01-01T00:00:00.000Z"));
      await expect(store.createRun(record("dup", "2026-01-01T00:00:00.000Z"))).rejects.toMatchObject({
        code: "RUN_EXISTS",
      });
      await store.close();
    });

    it("keeps a run's last event number from a status write, and keeps it through a status write without one", async () => {
      const { store, reopen } = await make();
      await store.createRun(record("seq", "2026-01-01T00:00:00.000Z"));
      expect((await store.loadSummary("seq"))!.run.eventSeq).toBeUndefined();
      const at = "2026-01-01T00:00:01.000Z";
      await store.write("seq", [{ kind: "status", status: "escalated", updatedAt: at, eventSeq: 13 }]);
      await store.write("seq", [{ kind: "status", status: "running", updatedAt: at }]);
      expect((await store.load("seq"))!.run).toMatchObject({ status: "running", eventSeq: 13 });
      await store.close();
      if (reopen) {
        const again = reopen();
        expect((await again.loadSummary("seq"))!.run.eventSeq).toBe(13);
        await again.close();
      }
    });

    it("records a resolution on the escalated node or item", async () => {
      const { store } = await make();
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
      const { store } = await make();
      await store.createRun(record("old", "2026-01-01T00:00:00.000Z"));
      await store.createRun(record("new", "2026-02-01T00:00:00.000Z"));
      expect((await store.list()).map((r) => r.runId)).toEqual(["new", "old"]);
      expect((await store.list({ limit: 1 })).map((r) => r.runId)).toEqual(["new"]);
      await store.close();
    });

    it("gives a run's lease to exactly one owner until it lapses or is released", async () => {
      const { store, reopen } = await make();
      await store.createRun(record("leased", "2026-01-01T00:00:00.000Z"));
      const race = await Promise.all(["a", "b", "c"].map((o) => store.acquireLease("leased", o, 60_000)));
      expect(race.filter((r) => r.acquired)).toHaveLength(1);
      const winner = ["a", "b", "c"][race.findIndex((r) => r.acquired)]!;
      const loser = winner === "a" ? "b" : "a";
      const refused = await store.acquireLease("leased", loser, 60_000);
      expect(refused).toMatchObject({ acquired: false, holder: { owner: winner } });
      if (!refused.acquired) expect(Date.parse(refused.holder.expiresAt)).toBeGreaterThan(Date.now());
      expect(await store.acquireLease("leased", winner, 60_000)).toEqual({ acquired: true });
      expect(await store.renewLease("leased", winner, 60_000)).toBe(true);
      expect(await store.renewLease("leased", loser, 60_000)).toBe(false);
      // The lease and its holder survive a reopen, and show on the run's record.
      const again = reopen ? (await store.close(), reopen()) : store;
      expect((await again.load("leased"))!.run.lease).toMatchObject({ owner: winner });
      expect((await again.list())[0]!.lease).toMatchObject({ owner: winner });
      expect((await again.acquireLease("leased", loser, 60_000)).acquired).toBe(false);
      await again.releaseLease("leased", loser); // not the holder: no effect
      expect((await again.acquireLease("leased", loser, 60_000)).acquired).toBe(false);
      await again.releaseLease("leased", winner);
      expect((await again.load("leased"))!.run.lease).toBeUndefined();
      expect(await again.acquireLease("leased", loser, 60_000)).toEqual({ acquired: true });
      await expect(again.acquireLease("missing", "a", 1000)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
      await again.close();
    });

    it("lets another owner take a lapsed lease, and the old owner learns it lost it", async () => {
      const { store } = await make();
      await store.createRun(record("lapse", "2026-01-01T00:00:00.000Z"));
      expect((await store.acquireLease("lapse", "dead", 150)).acquired).toBe(true);
      expect((await store.acquireLease("lapse", "next", 150)).acquired).toBe(false);
      await new Promise((r) => setTimeout(r, 250));
      expect((await store.acquireLease("lapse", "next", 60_000)).acquired).toBe(true);
      expect(await store.renewLease("lapse", "dead", 60_000)).toBe(false);
      await store.close();
    });

    it("prunes runs last updated before a date, but not a leased one", async () => {
      const { store } = await make();
      await store.createRun(record("ancient", "2020-01-01T00:00:00.000Z"));
      await store.write("ancient", [
        { kind: "artifact", key: "a", value: 1 },
        { kind: "item", nodeId: "n", item: { index: 0, status: "ok", key: "k" }, value: 2 },
        { kind: "node", nodeId: "n", record: { status: "ok", storedKeys: ["k"], attempts: 1 } },
      ]);
      await store.createRun(record("old-but-owned", "2020-01-01T00:00:00.000Z"));
      await store.acquireLease("old-but-owned", "me", 60_000);
      await store.createRun(record("recent", new Date().toISOString()));
      expect(await store.prune(new Date(Date.now() - 86_400_000))).toBe(1);
      expect(await store.load("ancient")).toBeUndefined();
      expect((await store.list()).map((r) => r.runId).sort()).toEqual(["old-but-owned", "recent"]);
      // A run created again under the pruned id starts empty (nothing of the old one is left behind).
      await store.createRun(record("ancient", "2026-01-01T00:00:00.000Z"));
      const reborn = await store.load("ancient");
      expect(reborn!.artifacts).toEqual({});
      expect(reborn!.items).toEqual({});
      await store.close();
    });

    it("keeps every one of many concurrent writes", async () => {
      const { store, reopen } = await make();
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

    it("loads a run's summary without its items, and pages items with counts by status", async () => {
      const { store } = await make();
      await store.createRun(record("r3", "2026-01-01T00:00:00.000Z"));
      const batch: RunMutation[] = [
        { kind: "artifact", key: "src", value: [1, 2, 3] },
        { kind: "node", nodeId: "a", record: { status: "ok", storedKeys: ["src"], attempts: 1 } },
      ];
      for (let index = 0; index < 25; index++) {
        const status = index % 5 === 0 ? "escalated" : "ok";
        batch.push(
          status === "ok"
            ? {
                kind: "item",
                nodeId: "b",
                item: {
                  index,
                  status,
                  key: `b_${index}`,
                  ...(index < 2
                    ? { details: { spend: { calls: 1, tokens: 10, cost: 0.5, duration: 1 } } }
                    : {}),
                },
                value: index * 10,
              }
            : { kind: "item", nodeId: "b", item: { index, status } },
        );
      }
      await store.write("r3", batch);
      const summary = await store.loadSummary("r3");
      expect(summary!.run.runId).toBe("r3");
      expect(summary!.nodes.a!.status).toBe("ok");
      expect(summary!.artifacts).toEqual({ src: [1, 2, 3] });
      expect(await store.loadSummary("missing")).toBeUndefined();

      const page = await store.listItems("r3", "b", { offset: 10, limit: 4 });
      expect(page.total).toBe(25);
      expect(page.counts).toEqual({ ok: 20, escalated: 5 });
      expect(page.spend).toEqual({ calls: 1, tokens: 10, cost: 0.5, duration: 1 });
      expect(page.items.map((i) => i.record.index)).toEqual([10, 11, 12, 13]);
      expect(page.items[1]).toEqual({ record: { index: 11, status: "ok", key: "b_11" }, value: 110 });
      const escalated = await store.listItems("r3", "b", { status: "escalated", offset: 1 });
      expect(escalated.total).toBe(5);
      expect(escalated.items.map((i) => i.record.index)).toEqual([5, 10, 15, 20]);
      expect(await store.listItems("r3", "none")).toEqual({ total: 0, counts: {}, items: [] });
      await store.close();
    });

    it("knows no run it was not given: load is undefined, a write is refused with RUN_NOT_FOUND", async () => {
      const { store } = await make();
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
      const { store } = await make();
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
      const { store } = await make();
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

    it("keeps a repaired run's lineage and its initial state (made in one step), and a run's repairs by id", async () => {
      const { store, reopen } = await make();
      await store.createRun(record("parent", "2026-01-01T00:00:00.000Z"));
      const repair = {
        id: "r1",
        round: 1,
        status: "asking" as const,
        createdAt: "2026-01-01T00:00:02.000Z",
        updatedAt: "2026-01-01T00:00:02.000Z",
        eligible: ["a"],
      };
      await store.write("parent", [{ kind: "repair", repair }]);
      await store.write("parent", [
        { kind: "repair", repair: { ...repair, status: "pending", delta: { nodes: [{ id: "a" }] } } },
        { kind: "repair", repair: { ...repair, id: "r2", round: 2 } },
      ]);
      await store.createRun(
        { ...record("child", "2026-01-01T00:00:03.000Z"), parentRunId: "parent", rootRunId: "parent" },
        [
          { kind: "artifact", key: "kept", value: { v: 1 } },
          { kind: "node", nodeId: "done", record: { status: "ok", storedKeys: ["kept"], attempts: 1 } },
          { kind: "item", nodeId: "each", item: { index: 0, status: "ok", key: "e_0" }, value: "zero" },
        ],
      );
      for (const s of [store, ...(reopen ? [reopen()] : [])]) {
        const parent = (await s.load("parent"))!.run;
        expect(parent.repairs!.map((r) => [r.id, r.status])).toEqual([
          ["r1", "pending"],
          ["r2", "asking"],
        ]);
        expect(parent.repairs![0]!.delta).toEqual({ nodes: [{ id: "a" }] });
        expect(parent.parentRunId).toBeUndefined();
        const child = (await s.load("child"))!;
        expect(child.run).toMatchObject({ parentRunId: "parent", rootRunId: "parent" });
        expect(child.run.repairs).toBeUndefined();
        expect(child.artifacts).toEqual({ kept: { v: 1 }, e_0: "zero" });
        expect(child.nodes.done!.status).toBe("ok");
        expect(child.items.each![0]!.key).toBe("e_0");
        const listed = await s.list();
        expect(listed.find((r) => r.runId === "child")).toMatchObject({ parentRunId: "parent" });
        expect(listed.find((r) => r.runId === "parent")!.repairs).toHaveLength(2);
        if (s !== store) await s.close();
      }
      // A run id taken is refused with its initial state left out entirely.
      await expect(
        store.createRun(record("child", "2026-01-01T00:00:04.000Z"), [
          { kind: "artifact", key: "intruder", value: 1 },
        ]),
      ).rejects.toMatchObject({ code: "RUN_EXISTS" });
      expect((await store.load("child"))!.artifacts).not.toHaveProperty("intruder");
      await store.close();
    });
  });
}
