import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryRunStore, SqliteRunStore } from "../src/plan/index.js";
import { runStoreSuite } from "./run-store-suite.js";

runStoreSuite("MemoryRunStore", () => ({ store: new MemoryRunStore() }));
runStoreSuite("SqliteRunStore", () => {
  const path = join(mkdtempSync(join(tmpdir(), "deputy-store-")), "runs.db");
  return { store: new SqliteRunStore(path), reopen: () => new SqliteRunStore(path) };
});
