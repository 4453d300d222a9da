import { inject } from "vitest";
import { PostgresRunStore } from "../src/plan/index.js";
import { freshDatabase } from "./postgres-database.js";
import { runStoreSuite } from "./run-store-suite.js";

const url = inject("pgUrl");

// Each test gets a database of its own, so runs from one test never show in another's list.
runStoreSuite("PostgresRunStore", async () => {
  const db = await freshDatabase(url);
  const store = new PostgresRunStore(db);
  return {
    store,
    reopen: () => new PostgresRunStore(db),
    setStoredOptions: async (runId, options) => {
      await store.pool.query(`UPDATE deputy.runs SET options = $1 WHERE run_id = $2`, [
        JSON.stringify(options),
        runId,
      ]);
    },
  };
});
