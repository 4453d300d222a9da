/**
 * The run store's cache: values that outlive a run — a read-only tool's result (`cache: { ttl }` on a tool node
 * or definition), a deterministic delegate's proposal — kept under a key their maker derived, shared by every
 * process on the store, until they expire or are cleared (`deputy cache clear`).
 */

/** One cached value. */
export interface CacheEntry {
  /** What the value answers (a digest its maker derived; see `tool-result-cache.ts`, `cached-delegate.ts`). */
  key: string;
  /** What the entry belongs to, so a part can be cleared alone: `tool:NAME`, `proposal:BACKEND`. */
  scope: string;
  /** JSON data. */
  value: unknown;
  /** When it was stored (epoch ms). */
  createdAt: number;
  /** From when it is gone (epoch ms); `null`: until it is cleared. */
  expiresAt: number | null;
}

/** Options of `RunStore.clearCache`. */
export interface CacheClearOptions {
  /** Only the entries of this scope (`tool:NAME`). Default: every scope. */
  scope?: string;
  /** Only the entries expired at this time (epoch ms). Default: expired or not. */
  expiredAt?: number;
}

/** The scope of a tool's cached results. */
export function toolCacheScope(tool: string): string {
  return `tool:${tool}`;
}

/** True when `entry` is still live at `now` (shared by the stores that filter in memory). */
export function isLive(entry: Pick<CacheEntry, "expiresAt">, now: number): boolean {
  return entry.expiresAt === null || entry.expiresAt > now;
}

/** True when `entry` is one `clearCache(options)` deletes (shared by the stores that filter in memory). */
export function isCleared(entry: CacheEntry, options: CacheClearOptions = {}): boolean {
  if (options.scope !== undefined && entry.scope !== options.scope) return false;
  return options.expiredAt === undefined || !isLive(entry, options.expiredAt);
}
