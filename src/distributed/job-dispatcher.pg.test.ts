import { afterEach, describe, expect, inject, it } from "vitest";
import { freshDatabase } from "../../test/postgres-database.js";
import type { UnitOutcome, WorkUnit } from "../plan/node-executor.js";
import type { BaseNode } from "../plan/plan-schema.js";
import { PostgresRunStore } from "../store/postgres-run-store.js";
import { doneMessage, JobDispatcher, UNIT_DONE_CHANNEL } from "./job-dispatcher.js";

// The coordinator's side against a real server, with no worker: what one enqueue statement does with stored
// outcomes and queued jobs, and outcomes arriving in notifications.
const serverUrl = inject("pgUrl");
const node = { id: "each", tool: "io", args: {} } as unknown as BaseNode;
const unit = (runId: string, itemIndex: number): WorkUnit =>
  ({
    runId,
    nodeId: "each",
    itemIndex,
    scope: { artifacts: {}, item: itemIndex, index: itemIndex },
    signal: new AbortController().signal,
    statuses: {},
    errors: {},
  }) as unknown as WorkUnit;

/** What each test opened, closed after it in reverse order. */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup() {
  const store = new PostgresRunStore(await freshDatabase(serverUrl));
  // No poll during the test: every answer must come from the enqueue statement or a notification.
  const dispatcher = new JobDispatcher(store, { pollMs: 60_000 });
  open.push(store, dispatcher);
  const jobs = async (runId: string) =>
    (
      await store.pool.query<{ key: string }>(
        `SELECT key FROM graphile_worker._private_jobs WHERE key LIKE $1 ORDER BY key`,
        [`${runId}/%`],
      )
    ).rows.map((r) => r.key);
  const storeOutcome = (key: string, runId: string, outcome: UnitOutcome) =>
    store.pool.query(
      `INSERT INTO deputy.unit_results (key, run_id, outcome, worker) VALUES ($1, $2, $3, 'test')`,
      [key, runId, JSON.stringify(outcome)],
    );
  return { store, dispatcher, jobs, storeOutcome };
}

/** Settles when the promise does, or says it has not within `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

describe("JobDispatcher", () => {
  it("answers a unit whose success is stored without enqueuing it, and enqueues the others once, keyed", async () => {
    const { store, dispatcher, jobs, storeOutcome } = await setup();
    await store.ready();
    await storeOutcome("r1/each/0", "r1", { status: "ok", value: 42 });
    const first = dispatcher.dispatch(node, unit("r1", 0));
    const second = dispatcher.dispatch(node, unit("r1", 1));
    expect(await first).toEqual({ status: "ok", value: 42 });
    expect(await within(second, 500)).toBe("pending");
    expect(await jobs("r1")).toEqual(["r1/each/1"]);
  });

  it("runs a unit again whose stored outcome is an earlier attempt's error: the error is dropped, a job added", async () => {
    const { store, dispatcher, jobs, storeOutcome } = await setup();
    await store.ready();
    const failed: UnitOutcome = { status: "error", error: { code: "TOOL_FAILED", message: "boom" } };
    await storeOutcome("r2/each/0", "r2", failed);
    const pending = dispatcher.dispatch(node, unit("r2", 0));
    await expect.poll(() => jobs("r2")).toEqual(["r2/each/0"]);
    const { rowCount } = await store.pool.query(`SELECT 1 FROM deputy.unit_results WHERE key = 'r2/each/0'`);
    expect(rowCount).toBe(0);
    expect(await within(pending, 300)).toBe("pending");
  });

  it("takes an outcome from its notification, or fetches it when the notification carries only the key", async () => {
    const { store, dispatcher, jobs, storeOutcome } = await setup();
    const a = dispatcher.dispatch(node, unit("r3", 0));
    const b = dispatcher.dispatch(node, unit("r3", 1));
    await expect.poll(() => jobs("r3")).toEqual(["r3/each/0", "r3/each/1"]);
    // A second dispatch of a queued unit (a resumed coordinator) adds no second job.
    const again = new JobDispatcher(store, { pollMs: 60_000 });
    open.push(again);
    void again.dispatch(node, unit("r3", 0));
    await new Promise((r) => setTimeout(r, 300));
    expect(await jobs("r3")).toEqual(["r3/each/0", "r3/each/1"]);

    // In the notification: nothing stored is read (the row does not even exist).
    const value = { status: "ok", value: "from the notification" } as const;
    await store.pool.query(`SELECT pg_notify($1, $2)`, [
      UNIT_DONE_CHANNEL,
      doneMessage("r3/each/0", JSON.stringify(value)),
    ]);
    expect(await a).toEqual(value);
    // Only the key (too large, or stored by another worker first): the stored outcome is fetched.
    await storeOutcome("r3/each/1", "r3", { status: "ok", value: "stored" });
    await store.pool.query(`SELECT pg_notify($1, $2)`, [UNIT_DONE_CHANNEL, doneMessage("r3/each/1")]);
    expect(await b).toEqual({ status: "ok", value: "stored" });
  });

  it("announces large outcomes by key only (a notification carries under 8,000 bytes)", () => {
    expect(JSON.parse(doneMessage("k", JSON.stringify({ status: "ok", value: 1 })))).toEqual([
      "k",
      { status: "ok", value: 1 },
    ]);
    expect(JSON.parse(doneMessage("k", JSON.stringify({ status: "ok", value: "é".repeat(4000) })))).toEqual([
      "k",
    ]);
  });
});
