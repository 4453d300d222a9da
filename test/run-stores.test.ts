import { mkdtempSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryRunStore, SqliteRunStore } from "../src/plan/index.js";
import { runStoreSuite, type StoreUnderTest } from "./run-store-suite.js";
import { cacheStoreSuite } from "./cache-store-suite.js";

runStoreSuite("MemoryRunStore", () => ({ store: new MemoryRunStore() }));
cacheStoreSuite("MemoryRunStore", () => ({ store: new MemoryRunStore() }));
runStoreSuite("SqliteRunStore", sqliteUnderTest);
cacheStoreSuite("SqliteRunStore", sqliteUnderTest);

function sqliteUnderTest(): StoreUnderTest {
  const path = join(mkdtempSync(join(tmpdir(), "deputy-store-")), "runs.db");
  return {
    store: new SqliteRunStore(path),
    reopen: () => new SqliteRunStore(path),
    setStoredOptions: async (runId, options) => {
      const db = new DatabaseSync(path);
      db.prepare(`UPDATE runs SET options = ? WHERE run_id = ?`).run(JSON.stringify(options), runId);
      db.close();
    },
  };
}

describe("SqliteRunStore on a store made before items had status and spend columns", () => {
  it("adds and fills them on open, so counts and pages by status work", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-store-")), "old.db");
    const db = new DatabaseSync(path);
    db.exec(`CREATE TABLE items (
      run_id TEXT NOT NULL, node_id TEXT NOT NULL, idx INTEGER NOT NULL, record TEXT NOT NULL,
      key TEXT, value TEXT, PRIMARY KEY (run_id, node_id, idx)) WITHOUT ROWID`);
    const insert = db.prepare(`INSERT INTO items VALUES ('r', 'n', ?, ?, NULL, NULL)`);
    insert.run(
      0,
      JSON.stringify({
        index: 0,
        status: "ok",
        details: { spend: { calls: 2, tokens: 5, cost: 1, duration: 1 } },
      }),
    );
    insert.run(1, JSON.stringify({ index: 1, status: "escalated" }));
    db.close();
    const store = new SqliteRunStore(path);
    const page = await store.listItems("r", "n", { status: "escalated" });
    expect(page.counts).toEqual({ ok: 1, escalated: 1 });
    expect(page.spend).toEqual({ calls: 2, tokens: 5, cost: 1, duration: 1 });
    expect(page.items.map((i) => i.record.index)).toEqual([1]);
    await store.close();
  });
});

describe("SqliteRunStore on a store made before repairs (user_version 2)", () => {
  it("adds the lineage and repairs columns on open, keeping its runs", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-store-")), "v2.db");
    const db = new DatabaseSync(path);
    db.exec(`CREATE TABLE runs (
      run_id TEXT PRIMARY KEY, plan_name TEXT NOT NULL, fingerprint TEXT NOT NULL, plan TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, options TEXT NOT NULL, error TEXT,
      lease_owner TEXT, lease_heartbeat INTEGER, lease_expires INTEGER);
      INSERT INTO runs VALUES ('old', 'p', 'f', '{"name":"p","nodes":[]}', 'failed', '2026-01-01', '2026-01-01',
        '{"version":1}', NULL, NULL, NULL, NULL);
      PRAGMA user_version = 2;`);
    db.close();
    const store = new SqliteRunStore(path);
    const at = "2026-01-02T00:00:00.000Z";
    await store.write("old", [
      {
        kind: "repair",
        repair: { id: "r1", round: 1, status: "asking", createdAt: at, updatedAt: at, eligible: [] },
      },
    ]);
    const run = (await store.load("old"))!.run;
    expect(run).toMatchObject({ runId: "old", status: "failed", repairs: [{ id: "r1" }] });
    expect(run.parentRunId).toBeUndefined();
    await store.close();
    const check = new DatabaseSync(path);
    expect((check.prepare("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(3);
    check.close();
  });
});

describe("the options record a run is started with", () => {
  it("is written once by the engine, versioned and typed, and read back so from a durable store", async () => {
    const { runPlan } = await import("../src/index.js");
    const { defineTool } = await import("../src/tools/define-tool.js");
    const echo = defineTool({ name: "echo", description: "echo", input: {}, run: () => 1 });
    const path = join(mkdtempSync(join(tmpdir(), "deputy-store-")), "runs.db");
    const store = new SqliteRunStore(path);
    const plan = {
      name: "p",
      inputs: { type: "object", properties: { q: { type: "string" } } },
      nodes: [{ id: "a", tool: "echo", args: {}, store_as: "a" }],
    };
    const m = await runPlan(plan, {
      tools: [echo],
      store,
      inputs: { q: "billing" },
      meta: { tools: "/abs/tools.mjs", extra: { team: "ops" } },
    });
    await store.close();
    const again = new SqliteRunStore(path);
    expect((await again.load(m.runId))!.run.options).toEqual({
      version: 1,
      tools: "/abs/tools.mjs",
      inputs: { q: "billing" },
      extra: { team: "ops" },
      // The definition of the tool the plan calls, as it was validated against it (a resume compares).
      toolDefinitions: {
        echo: { description: expect.any(String), input: expect.any(String), annotations: expect.any(String) },
      },
    });
    await again.close();
  });
});
