import type { LeaseOptions } from "../store/run-lease.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { redactUrl } from "../store/postgres-run-store.js";

/** `--lease-ttl SECONDS` as lease options (default {@link DEFAULT_LEASE_MS}); `--wait` waits for the owner. */
export function leaseFrom(flags: { leaseTtl?: string; wait?: boolean }): LeaseOptions {
  const lease: LeaseOptions = {};
  if (flags.leaseTtl !== undefined) {
    const seconds = Number(flags.leaseTtl);
    if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 86_400) {
      throw new InvalidOptionError("--lease-ttl", "a number of seconds from 0.1 to 86400", flags.leaseTtl);
    }
    lease.ttlMs = Math.round(seconds * 1000);
  }
  if (flags.wait) lease.wait = true;
  return lease;
}

/** The store's location as it may be printed (a URL's password replaced by `***`). */
export function storeLabel(location: string | false): string {
  return location === false ? "memory" : redactUrl(location);
}

/** The `--store …` to print in a hint: only what the user passed (`$DEPUTY_STORE` and the default carry over). */
export function storeHint(store: string | false | undefined): string | false | undefined {
  if (store === false) return false; // --no-store: nothing to resume, so no hint
  return store ? storeLabel(store) : undefined;
}
