import { inject } from "vitest";
import { PostgresRunStore } from "../src/plan/index.js";
import { freshDatabase } from "./postgres-database.js";
import { runStoreSuite, type StoreUnderTest } from "./run-store-suite.js";
import { cacheStoreSuite } from "./cache-store-suite.js";

const url = inject("pgUrl");

// Each test gets a database of its own, so runs from one test never show in another's list.
runStoreSuite("PostgresRunStore", postgresUnderTest);
cacheStoreSuite("PostgresRunStore", postgresUnderTest);

async function postgresUnderTest(): Promise<StoreUnderTest> {
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
}
