import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { PostgresRunStore, type PostgresRunStoreOptions } from "../store/postgres-run-store.js";
import type { RunStore } from "../store/run-store.js";
import { openStoreFile } from "./open-store-file.js";

/** The default store file. */
export const DEFAULT_STORE = ".deputy/runs.db";

/** Where `--store` points: the flag, else `$DEPUTY_STORE`, else {@link DEFAULT_STORE}; `false` for `--no-store`. */
export function storeLocation(store: string | false | undefined): string | false {
  if (store === false) return false;
  return store || process.env.DEPUTY_STORE || DEFAULT_STORE;
}

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The PostgreSQL store a distributed command needs, or exit 2 naming the flag. */
export function requirePostgres(
  store: string | false | undefined,
  what: string,
  options: PostgresRunStoreOptions = {},
): PostgresRunStore {
  const location = storeLocation(store);
  if (location === false || !isPostgresUrl(location)) {
    throw new InvalidOptionError("--store", `a postgres:// URL for ${what}`, location || "--no-store");
  }
  return new PostgresRunStore(location, options);
}

/**
 * Opens the run store named by `--store` or `$DEPUTY_STORE`: a `postgres://` URL (PostgreSQL), else an SQLite
 * file (default `.deputy/runs.db`); `--no-store` keeps runs in memory. `mustExist`: the command reads runs, so a
 * missing SQLite store is an error and nothing is created.
 */
export function openStore(
  store: string | false | undefined,
  options: { mustExist?: boolean } = {},
): RunStore {
  const location = storeLocation(store);
  if (location === false) return new MemoryRunStore();
  return isPostgresUrl(location) ? new PostgresRunStore(location) : openStoreFile(location, options);
}
