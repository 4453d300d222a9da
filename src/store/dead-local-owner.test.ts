import { spawn } from "node:child_process";
import { once } from "node:events";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { isDeadLocalOwner } from "./dead-local-owner.js";
import { MemoryRunStore } from "./memory-run-store.js";
import { acquireRunLease } from "./run-lease.js";

/** The pid of a process that existed and was killed with SIGKILL. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  const pid = child.pid!;
  child.kill("SIGKILL");
  await once(child, "exit");
  return pid;
}

describe("isDeadLocalOwner", () => {
  it("is true only for a gone process of this host", async () => {
    const pid = await deadPid();
    expect(isDeadLocalOwner(`${hostname()}:${pid}:a1b2c3`)).toBe(true);
    // Another host's process cannot be asked: its lease must lapse.
    expect(isDeadLocalOwner(`elsewhere-${hostname()}:${pid}:a1b2c3`)).toBe(false);
    expect(isDeadLocalOwner(`${hostname()}:${process.pid}:a1b2c3`)).toBe(false);
    expect(isDeadLocalOwner(`${hostname()}:1:a1b2c3`)).toBe(false);
    expect(isDeadLocalOwner("worker-7")).toBe(false);
    expect(isDeadLocalOwner(`${hostname()}:${pid}`)).toBe(false);
  });
});

describe("acquireRunLease", () => {
  it("takes over a dead local owner's lease at once, and still refuses a live or remote owner", async () => {
    const store = new MemoryRunStore();
    await store.createRun({
      runId: "r",
      planName: "p",
      fingerprint: "f",
      status: "running",
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(0).toISOString(),
    } as never);
    const dead = `${hostname()}:${await deadPid()}:a1b2c3`;
    expect((await store.acquireLease("r", dead, 60_000)).acquired).toBe(true);
    const started = Date.now();
    const lease = await acquireRunLease(store, "r", { ttlMs: 60_000 });
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(acquireRunLease(store, "r", { ttlMs: 60_000 })).rejects.toMatchObject({
      code: "RUN_LEASED",
    });
    await lease.release();
    expect((await store.acquireLease("r", `elsewhere:${await deadPid()}:a1b2c3`, 60_000)).acquired).toBe(
      true,
    );
    await expect(acquireRunLease(store, "r", { ttlMs: 60_000 })).rejects.toMatchObject({
      code: "RUN_LEASED",
    });
  });
});
