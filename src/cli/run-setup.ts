import { existsSync } from "node:fs";
import { resolve } from "node:path";
// Each backend kind registers its `--delegate KIND=…` spec when imported.
import "../delegate/backends/register-specs.js";
import "../delegate/distilled/register-spec.js";
import { createDelegateFromSpec } from "../delegate/delegate-spec.js";
import { JsonlTraceSink } from "../traces/jsonl-trace-sink.js";
import type { ToolCallDelegate } from "../delegate/protocol.js";
import { MemoryRunStore } from "../plan/memory-run-store.js";
import type { RunOptions } from "../index.js";
import type { RunStore } from "../plan/run-store.js";
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
function absoluteSpec(spec: string): string {
  const eq = spec.indexOf("=");
  if (eq < 0) return spec;
  const value = spec.slice(eq + 1);
  const comma = value.search(/,[A-Za-z][A-Za-z0-9_-]*=/);
  const main = comma < 0 ? value : value.slice(0, comma);
  return existsSync(main)
    ? `${spec.slice(0, eq)}=${resolve(main)}${comma < 0 ? "" : value.slice(comma)}`
    : spec;
}

/** The default store file. */
export const DEFAULT_STORE = ".deputy/runs.db";

/**
 * Opens the run store named by `--store` (default `.deputy/runs.db`; `--no-store` keeps runs in memory).
 * `mustExist`: the command reads runs, so a missing store is an error and nothing is created.
 */
export function openStore(
  store: string | false | undefined,
  options: { mustExist?: boolean } = {},
): RunStore {
  return store === false ? new MemoryRunStore() : openStoreFile(store ?? DEFAULT_STORE, options);
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
