import { mkdtempSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryRunStore, SqliteRunStore } from "../src/plan/index.js";
import { runStoreSuite } from "./run-store-suite.js";

runStoreSuite("MemoryRunStore", () => ({ store: new MemoryRunStore() }));
runStoreSuite("SqliteRunStore", () => {
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
});

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
