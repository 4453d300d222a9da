import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { RunError } from "../errors/run-error.js";
import { RunLeasedError } from "../errors/run-leased-error.js";
import { isDeadLocalOwner } from "./dead-local-owner.js";
import type { RunMutation, RunStore } from "./run-store.js";

/** How a run's process holds the run (see `docs/architecture.md`, "Ownership"). */
export interface LeaseOptions {
  /** Who holds the lease. Default: `host:pid:random`, unique per process and run. */
  owner?: string;
  /**
   * How long the lease lasts without a heartbeat, in ms: a run whose owner died on another host becomes
   * resumable this long after its last heartbeat (a dead owner on this host is taken over at once). The owner renews every `ttlMs / 3`. Default 10 000.
   */
  ttlMs?: number;
  /** When another process holds the run: wait until it is free (`true`) or refuse (`false`, default). */
  wait?: boolean;
}

/** Default lease length, ms. */
export const DEFAULT_LEASE_MS = 10_000;

/** A lease this process holds on one run, renewed in the background until released. */
export interface HeldLease {
  readonly owner: string;
  /** Aborted when the lease is lost (not renewed in time, or taken over): the run must stop at once. */
  readonly lost: AbortSignal;
  /** The store, fenced: once the lease is lost, writes are dropped, so a stale owner cannot overwrite. */
  readonly store: RunStore;
  release(): Promise<void>;
}

const DROPPED: Promise<void> = Promise.resolve();

/** A fresh owner id for this process. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * Takes the run's lease (refusing with {@link RunLeasedError}, or waiting, when another owner holds it) and
 * keeps it renewed. The owner counts its lease as valid only until `ttlMs` after its last successful renewal
 * (by its own clock), so it stops writing before anyone else may take over.
 */
export async function acquireRunLease(
  store: RunStore,
  runId: string,
  options: LeaseOptions = {},
  signal?: AbortSignal,
): Promise<HeldLease> {
  const owner = options.owner ?? newLeaseOwner();
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_MS;
  if (!(ttlMs >= 100))
    throw new RunError("LEASE_INVALID", `Expected the lease to be ≥ 100 ms, got ${ttlMs}.`);
  let takenOver: string | undefined;
  for (;;) {
    const asked = Date.now();
    const result = await store.acquireLease(runId, owner, ttlMs);
    if (result.acquired) return hold(store, runId, owner, ttlMs, asked);
    // A dead process of this host (kill -9) cannot renew: free its lease now rather than make a resume wait
    // `ttlMs`. The release names the dead owner, so if another resume took the run first it changes nothing,
    // and the next acquire decides between them. Once per holder, so a store that keeps it cannot loop.
    const holder = result.holder.owner;
    if (holder !== takenOver && isDeadLocalOwner(holder)) {
      takenOver = holder;
      await store.releaseLease(runId, holder);
      continue;
    }
    if (!options.wait) throw new RunLeasedError(runId, result.holder);
    if (signal?.aborted) throw signal.reason;
    await new Promise((r) => setTimeout(r, Math.min(1000, ttlMs / 4)));
  }
}

function hold(store: RunStore, runId: string, owner: string, ttlMs: number, since: number): HeldLease {
  const lost = new AbortController();
  let validUntil = since + ttlMs;
  let released = false;
  const lose = (why: string) => {
    if (!lost.signal.aborted)
      lost.abort(new RunError("LEASE_LOST", `Lost the lease on run ${runId}: ${why}`));
  };
  // Fires when the lease would lapse without a renewal, so a stalled owner stops even while it is not writing.
  let expiry: NodeJS.Timeout | undefined;
  const armExpiry = () => {
    clearTimeout(expiry);
    expiry = setTimeout(
      () => lose(`no heartbeat reached the store for ${ttlMs} ms.`),
      Math.max(0, validUntil - Date.now()),
    );
    expiry.unref();
  };
  armExpiry();
  const beat = async () => {
    const asked = Date.now();
    try {
      if (await store.renewLease(runId, owner, ttlMs)) {
        validUntil = asked + ttlMs;
        if (!released) armExpiry();
      } else lose("another process took the run over.");
    } catch {
      // A store that is briefly unreachable: keep trying until the lease would have lapsed.
    }
    if (Date.now() >= validUntil) lose(`no heartbeat reached the store for ${ttlMs} ms.`);
  };
  const timer = setInterval(() => {
    if (!released && !lost.signal.aborted) void beat();
  }, ttlMs / 3);
  timer.unref();
  const valid = () => {
    if (Date.now() >= validUntil) lose(`no heartbeat reached the store for ${ttlMs} ms.`);
    return !lost.signal.aborted;
  };
  const fenced: RunStore = {
    createRun: (run, initial) => store.createRun(run, initial),
    // (No async frame of its own: this is on every commit's path.)
    write: (id, batch: RunMutation[]) => (id === runId && !valid() ? DROPPED : store.write(id, batch)),
    load: (id) => store.load(id),
    list: (o) => store.list(o),
    acquireLease: (id, o, t) => store.acquireLease(id, o, t),
    renewLease: (id, o, t) => store.renewLease(id, o, t),
    releaseLease: (id, o) => store.releaseLease(id, o),
    prune: (before) => store.prune(before),
    loadSummary: (id) => store.loadSummary(id),
    listItems: (id, node, o) => store.listItems(id, node, o),
    getCached: (key, now) => store.getCached(key, now),
    putCached: (entry) => store.putCached(entry),
    clearCache: (o) => store.clearCache(o),
    close: () => store.close(),
  };
  return {
    owner,
    lost: lost.signal,
    store: fenced,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      clearTimeout(expiry);
      if (!lost.signal.aborted) await store.releaseLease(runId, owner);
    },
  };
}
