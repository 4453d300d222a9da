import type { Clock } from "../runtime/clock.js";
import type { RunStore } from "../store/run-store.js";

/**
 * What the engine offers tool nodes with `cache: { ttl }` (see `tool-result-cache.ts`): the run's store (whose
 * cache table outlives the run), its clock and its redactor. Set by the engine for every run; a host without it
 * (a worker's, a test's) caches nothing.
 */
export interface ResultCacheHost {
  store: Pick<RunStore, "getCached" | "putCached">;
  now: Clock;
  /** The run's redactor: a value it would change (a secret in it) is not cached. */
  redact: (value: unknown) => unknown;
}
