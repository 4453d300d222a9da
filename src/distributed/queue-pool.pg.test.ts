import type pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { PostgresRunStore } from "../store/postgres-run-store.js";
import { queuePool } from "./queue-pool.js";

const serverUrl = inject("pgUrl");

/** A session setting as a connection of the pool sees it. */
const setting = async (pool: pg.Pool, name: string) =>
  (await pool.query<{ v: string }>(`SELECT current_setting($1) AS v`, [name])).rows[0]!.v;

describe("queuePool", () => {
  it("commits without waiting for the disk, while the run store's own commits still wait", async () => {
    const store = new PostgresRunStore(serverUrl);
    const queue = queuePool(store, 2);
    try {
      expect(await setting(queue, "synchronous_commit")).toBe("off");
      expect(await setting(store.pool, "synchronous_commit")).toBe("on");
    } finally {
      await queue.end();
      await store.close();
    }
  });

  it("keeps the session options the store's URL already sets", async () => {
    const url = new URL(serverUrl);
    url.searchParams.set("options", "-c application_name=deputy-test");
    const store = new PostgresRunStore(url.toString());
    const queue = queuePool(store, 1);
    try {
      expect(await setting(queue, "application_name")).toBe("deputy-test");
      expect(await setting(queue, "synchronous_commit")).toBe("off");
    } finally {
      await queue.end();
      await store.close();
    }
  });
});
