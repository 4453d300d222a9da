import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ToolCallDelegate } from "../delegate/protocol.js";
import { checkMcpHeaderOrigins, mcpHeadersOf } from "../mcp/mcp-headers.js";
import { isMcpSpec } from "../mcp/mcp-source-spec.js";
import type { NodeType } from "../plan/node-type.js";
import { checkTracePath } from "../traces/check-trace-path.js";
import { JsonlTraceSink } from "../traces/jsonl-trace-sink.js";
import type { DelegateSpecRegistry } from "../delegate/delegate-spec.js";
import { defaultDelegateSpecs } from "./delegate-specs.js";
import { loadToolSources } from "./load-tool-sources.js";
import type { RunOptions } from "./run.js";

/** The flags shared by `run`, `resume` and `validate`. */
export interface RunFlags {
  /** `--tools`, repeatable: tools modules and MCP servers (see {@link loadToolSources}). */
  tools?: string | readonly string[];
  store?: string | false;
  delegate?: string[];
  traces?: string;
  allowDelegateSideEffects?: boolean;
  /** `--mcp-header 'Name: value'`, repeatable: sent to the MCP servers over HTTP; never kept with the run. */
  mcpHeader?: readonly string[];
  /** `--mcp-headers-file FILE`: more such headers, one a line. */
  mcpHeadersFile?: string;
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

/** `--tools` as a list (commander gives a list; the console and a resume may give one value). */
export function toolSourcesOf(tools: RunFlags["tools"]): string[] {
  if (tools === undefined) return [];
  return typeof tools === "string" ? [tools] : [...tools];
}

/**
 * Loads the tools (modules and MCP servers) and builds the delegate chain: the run options without the store.
 * `close()` stops what was started (MCP servers, delegates, the trace sink). `cwd`: where stdio MCP servers
 * start (a resume passes the run's). Default: this process's. `specs`: the kinds `--delegate` specs may name.
 * Default: every built-in kind ({@link defaultDelegateSpecs}).
 */
export async function setupRun(
  flags: RunFlags & { cwd?: string; specs?: DelegateSpecRegistry },
): Promise<{ options: Omit<RunOptions, "store">; close(): Promise<void> }> {
  const specs = flags.specs ?? defaultDelegateSpecs();
  const delegates: ToolCallDelegate[] = [];
  const options: Omit<RunOptions, "store"> = { tools: [] };
  let closeTools = async () => {};
  const close = async () => {
    await Promise.allSettled([closeTools(), ...delegates.map((d) => d.close())]);
    await options.traceSink?.close?.();
  };
  const sources = toolSourcesOf(flags.tools);
  let recorded: string[] = [];
  try {
    // Headers are a secret: they reach the MCP servers and nothing else (not `options.meta`, the run's record).
    const headers = mcpHeadersOf(flags);
    if (headers && !sources.length) checkMcpHeaderOrigins([]);
    if (sources.length) {
      const loaded = await loadToolSources(sources, {
        ...(flags.cwd ? { cwd: flags.cwd } : {}),
        ...(headers ? { headers } : {}),
      });
      closeTools = loaded.close;
      options.tools = loaded.tools;
      recorded = loaded.recorded;
      if (loaded.agents) options.agents = loaded.agents;
      if (loaded.nodeTypes) options.nodeTypes = loaded.nodeTypes as NodeType<any>[];
    }
    for (const spec of flags.delegate ?? []) delegates.push(await specs.create(spec));
    options.delegates = delegates;
    if (flags.traces) {
      checkTracePath(flags.traces);
      options.traceSink = new JsonlTraceSink(flags.traces);
    }
    options.allowDelegateSideEffects = flags.allowDelegateSideEffects === true;
    // What `deputy resume` needs to rebuild the same run; specs name files and URLs, never secrets.
    const modules = recorded.filter((r) => !isMcpSpec(r));
    options.meta = {
      // `tools` keeps naming the first module, as readers before MCP sources (the console, resolve) expect.
      ...(modules.length ? { tools: modules[0] } : {}),
      ...(recorded.length > 1 || recorded.some(isMcpSpec) ? { toolSources: recorded } : {}),
      ...(recorded.some((r) => r.startsWith("mcp") && r.includes(":stdio:"))
        ? { cwd: flags.cwd ?? process.cwd() }
        : {}),
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
