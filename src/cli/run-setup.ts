import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { NodeType } from "../plan/node-type.js";
// Each backend kind registers its `--delegate KIND=…` spec when imported.
import "../delegate/backends/register-specs.js";
import "../distill/register-spec.js";
import { createDelegateFromSpec } from "../delegate/delegate-spec.js";
import { JsonlTraceSink } from "../traces/jsonl-trace-sink.js";
import type { ToolCallDelegate } from "../delegate/protocol.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import type { LeaseOptions } from "../store/run-lease.js";
import type { RunOptions } from "../index.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { RunStore } from "../store/run-store.js";
import { PostgresRunStore, redactUrl, type PostgresRunStoreOptions } from "../store/postgres-run-store.js";
import { loadToolsModule } from "../tools/load-tools-module.js";
import { openStoreFile } from "./open-store-file.js";
import { checkTracePath } from "../traces/check-trace-path.js";

/** The flags shared by `run`, `resume` and `validate`. */
export interface RunFlags {
  tools?: string;
  store?: string | false;
  delegate?: string[];
  traces?: string;
  allowDelegateSideEffects?: boolean;
}

/**
 * A spec whose value names an existing file (`scripted=p.jsonl`, `local=m.gguf`) with the file's absolute path,
 * so `deputy resume` finds it from any directory. URLs and options stay as they are.
 */
export function absoluteSpec(spec: string): string {
  const eq = spec.indexOf("=");
  if (eq < 0) return spec;
  const value = spec.slice(eq + 1);
  const comma = value.search(/,[A-Za-z][A-Za-z0-9_-]*=/);
  const main = comma < 0 ? value : value.slice(0, comma);
  return existsSync(main)
    ? `${spec.slice(0, eq)}=${resolve(main)}${comma < 0 ? "" : value.slice(comma)}`
    : spec;
}

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

/** The store's location as it may be printed (a URL's password replaced by `***`). */
export function storeLabel(location: string | false): string {
  return location === false ? "memory" : redactUrl(location);
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
 * Says on stderr when no `deputy worker` is alive on the store: a distributed run's units wait for one (a
 * resumed run included), which would otherwise look like a hang. Never fails the command.
 */
export async function noticeWithoutWorkers(
  dispatcher: { liveWorkers(): Promise<number> },
  stderr: (text: string) => void,
): Promise<void> {
  const live = await dispatcher.liveWorkers().catch(() => 1);
  if (live === 0)
    stderr("deputy: no `deputy worker` is alive on this store; the run's units wait until one starts\n");
}

/** The `--store …` to print in a hint: only what the user passed (`$DEPUTY_STORE` and the default carry over). */
export function storeHint(store: string | false | undefined): string | false | undefined {
  if (store === false) return false; // --no-store: nothing to resume, so no hint
  return store ? storeLabel(store) : undefined;
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

/** Loads the tools module and builds the delegate chain: the run options without the store. */
export async function setupRun(
  flags: RunFlags,
): Promise<{ options: Omit<RunOptions, "store">; close(): Promise<void> }> {
  const delegates: ToolCallDelegate[] = [];
  const options: Omit<RunOptions, "store"> = { tools: [] };
  const close = async () => {
    await Promise.allSettled(delegates.map((d) => d.close()));
    await options.traceSink?.close?.();
  };
  try {
    if (flags.tools) {
      const mod = await loadToolsModule(flags.tools);
      options.tools = mod.tools;
      if (mod.exports.agents && typeof mod.exports.agents === "object") {
        options.agents = mod.exports.agents as Record<string, unknown>;
      }
      // Node types of the user's own (`defineNodeType`), registered beside the built-in ones.
      if (Array.isArray(mod.exports.nodeTypes)) options.nodeTypes = mod.exports.nodeTypes as NodeType<any>[];
    }
    for (const spec of flags.delegate ?? []) delegates.push(await createDelegateFromSpec(spec));
    options.delegates = delegates;
    if (flags.traces) {
      checkTracePath(flags.traces);
      options.traceSink = new JsonlTraceSink(flags.traces);
    }
    options.allowDelegateSideEffects = flags.allowDelegateSideEffects === true;
    // What `deputy resume` needs to rebuild the same run; specs name files and URLs, never secrets.
    options.meta = {
      ...(flags.tools ? { tools: resolve(flags.tools) } : {}),
      ...(flags.delegate?.length ? { delegates: flags.delegate.map(absoluteSpec) } : {}),
      ...(flags.traces ? { traces: resolve(flags.traces) } : {}),
      ...(flags.allowDelegateSideEffects ? { allowDelegateSideEffects: true } : {}),
    };
  } catch (error) {
    await close();
    throw error;
  }
  return { options, close };
}
