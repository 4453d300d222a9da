import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { ToolError } from "../errors/tool-error.js";
import { toTool, type Tool, type ToolContext } from "../tools/define-tool.js";
import { readCallAnswer, type McpToolDefinition } from "./mcp-answers.js";
import { ANY_ANSWER, connect, type Connection, type Settings } from "./mcp-connection.js";
import { connectReason, oneLine } from "./error-text.js";
import type { McpHttpServer, McpServerInfo, McpServerOptions, McpStdioServer } from "./mcp-server-options.js";

export type { McpHttpServer, McpServerInfo, McpServerOptions, McpStdioServer } from "./mcp-server-options.js";

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /**
   * The names of the other tools these go beside (names, or tools): an MCP tool whose name is among them gets
   * its server's prefix, as tools whose names clash between servers do. Default: none.
   */
  besides?: Iterable<string | { name: string }>;
  /**
   * The largest tool result, in bytes of its JSON: a larger one is a `TOOL_RESULT_TOO_LARGE` tool error (what a
   * plan stores, checkpoints and may hand to a model must stay small). Default 1 MiB. A stdio message over
   * 10 MB is refused by the MCP SDK itself, which closes the connection.
   */
  maxResultBytes?: number;
  /** How long starting and the handshake may take, per server. Default 30 000 ms. */
  connectTimeoutMs?: number;
  /**
   * The longest one tool call may take, whatever its node's `timeout` (which aborts it sooner): a bound for
   * nodes without one, as the MCP SDK's own default. Raise it for a node whose `timeout` is longer. Default
   * 60 000 ms.
   */
  callTimeoutMs?: number;
}

const DEFAULTS = { maxResultBytes: 1024 * 1024, connectTimeoutMs: 30_000, callTimeoutMs: 60_000 } as const;

/**
 * The tools of one or more MCP servers as deputy tools, plus `close()`, which stops the servers deputy started.
 * Iterable, so it goes wherever `tools` is taken, alone or spread beside other tools. Every answer of a server is
 * untrusted: a tool list that deputy cannot use (an input schema that is not JSON Schema, a name clash left
 * over) fails here with one line naming the server and the tool; a call's `isError` result, JSON-RPC error or
 * lost connection is a `TOOL_FAILED` tool error (retried per the node's `retry`), and a result over
 * `maxResultBytes` is `TOOL_RESULT_TOO_LARGE`.
 *
 * @example
 * await using fs = await mcpTools({ command: "mcp-server-filesystem", args: [dir] });
 * await runPlan(plan, { tools: [...fs, lookupUser] });
 */
export async function mcpTools(
  servers: McpServerOptions | readonly McpServerOptions[],
  options: McpToolsOptions = {},
): Promise<McpTools> {
  const list = (Array.isArray(servers) ? servers : [servers]) as readonly McpServerOptions[];
  const settings = checkOptions(options);
  list.forEach((s, i) => checkServer(s, list.length === 1 ? "server" : `servers[${i}]`));
  const connections: Connection[] = [];
  try {
    for (const server of list) connections.push(await connect(server, settings));
    const tools = nameTools(connections, settings, besidesOf(options.besides));
    return new McpTools(tools, connections);
  } catch (error) {
    await Promise.allSettled(connections.map((c) => c.close()));
    throw error;
  }
}

/** The tools of MCP servers (iterable: `[...mcp]`, or `tools: mcp`) and the servers, until `close()`. */
export class McpTools implements Iterable<Tool>, AsyncDisposable {
  readonly tools: readonly Tool[];
  readonly #connections: readonly Connection[];

  /** @internal */
  constructor(tools: Tool[], connections: Connection[]) {
    this.tools = Object.freeze(tools);
    this.#connections = connections;
  }

  get servers(): readonly McpServerInfo[] {
    return this.#connections.map((c) => c.info());
  }

  [Symbol.iterator](): Iterator<Tool> {
    return this.tools[Symbol.iterator]();
  }

  /**
   * Closes every connection; a stdio server gets its stdin closed, then SIGTERM after 2 s, then SIGKILL (the
   * MCP SDK's order). Idempotent. A call in flight fails with `TOOL_FAILED`.
   */
  async close(): Promise<void> {
    await Promise.allSettled(this.#connections.map((c) => c.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function checkOptions(options: McpToolsOptions): Settings {
  if (typeof options !== "object" || options === null)
    throw new InvalidOptionError("options", "an object", options);
  const settings = { ...DEFAULTS } as Settings;
  for (const key of Object.keys(DEFAULTS) as (keyof Settings)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
      throw new InvalidOptionError(key, "a positive integer", value);
    settings[key] = value;
  }
  return settings;
}

function checkServer(server: McpServerOptions, where: string): void {
  if (typeof server !== "object" || server === null)
    throw new InvalidOptionError(where, "`{ command, args }` or `{ url }`", server);
  const s = server as Partial<McpStdioServer & McpHttpServer>;
  if ((s.command === undefined) === (s.url === undefined))
    throw new InvalidOptionError(
      where,
      "`{ command, args }` (stdio) or `{ url }` (HTTP), one of them",
      server,
    );
  if (s.command !== undefined && (typeof s.command !== "string" || s.command.trim() === ""))
    throw new InvalidOptionError(`${where}.command`, "a non-empty string", s.command);
  if (s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === "string")))
    throw new InvalidOptionError(`${where}.args`, "a list of strings", s.args);
  for (const key of ["env", "headers"] as const) {
    const record = s[key];
    if (record === undefined) continue;
    if (
      typeof record !== "object" ||
      record === null ||
      Object.values(record).some((v) => typeof v !== "string")
    )
      throw new InvalidOptionError(`${where}.${key}`, "a record of strings", record);
  }
  if (s.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(String(s.url));
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
      throw new InvalidOptionError(`${where}.url`, "an http:// or https:// URL", String(s.url));
  }
  if (s.name !== undefined && (typeof s.name !== "string" || !PREFIX.test(s.name)))
    throw new InvalidOptionError(`${where}.name`, "a name like `github` (letters, digits, _ and -)", s.name);
  if (s.trusted !== undefined && typeof s.trusted !== "boolean")
    throw new InvalidOptionError(`${where}.trusted`, "a boolean", s.trusted);
}

const PREFIX = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function besidesOf(besides: McpToolsOptions["besides"]): Set<string> {
  const names = new Set<string>();
  if (besides === undefined) return names;
  if (typeof besides !== "object" || besides === null || !(Symbol.iterator in besides))
    throw new InvalidOptionError("besides", "a list of tool names or tools", besides);
  for (const entry of besides) names.add(typeof entry === "string" ? entry : entry.name);
  return names;
}

/**
 * Names every server's tools: a tool keeps its own name unless another server has one of the same name, or a
 * tool given `besides` has it; then its server's prefix goes in front (`fs_read_file`). A clash that prefixes
 * do not settle (two servers of the same name) is an error asking for `name`.
 */
function nameTools(connections: Connection[], settings: Settings, besides: Set<string>): Tool[] {
  const count = new Map<string, number>();
  for (const c of connections) {
    const seen = new Set<string>();
    for (const d of c.definitions) {
      if (seen.has(d.name))
        throw new McpSourceError(
          "MCP_TOOLS_INVALID",
          c.label,
          `MCP server ${c.label} lists two tools named "${d.name}".`,
          { tool: d.name },
        );
      seen.add(d.name);
      count.set(d.name, (count.get(d.name) ?? 0) + 1);
    }
  }
  connections.forEach((c, i) => (c.prefix = prefixOf(c, i)));
  const taken = new Set(besides);
  const tools: Tool[] = [];
  for (const c of connections) {
    for (const d of c.definitions) {
      const clashes = (count.get(d.name) ?? 0) > 1 || besides.has(d.name);
      const name = clashes ? `${c.prefix}_${d.name}` : d.name;
      if (taken.has(name))
        throw new McpSourceError(
          "MCP_TOOLS_INVALID",
          c.label,
          `Two tools would be named "${name}" (MCP server ${c.label}): give its server a \`name\` of its own.`,
          { tool: d.name },
        );
      taken.add(name);
      c.names.set(name, d.name);
      tools.push(toDeputyTool(c, d, name, settings));
    }
  }
  return tools;
}

/** The server's own name (or the command's), made fit to prefix a tool name. */
function prefixOf(c: Connection, index: number): string {
  if (c.server.name) return c.server.name;
  const reported = c.client.getServerVersion()?.name;
  const base = typeof reported === "string" && reported.trim() ? reported : `mcp${index + 1}`;
  const safe = base.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[A-Za-z_]/.test(safe) ? safe : `mcp_${safe || index + 1}`;
}

function toDeputyTool(c: Connection, d: McpToolDefinition, name: string, settings: Settings): Tool {
  return mcpToolAsTool(d, { name, server: c.label, prefix: c.prefix, trusted: c.trusted }, (args, ctx) =>
    callTool(c, d.name, name, args, ctx, settings),
  );
}

/**
 * One MCP tool definition as a deputy tool named `as.name`: its description (else its title, else a phrase
 * naming it), its input schema compiled as deputy compiles every tool's (one that does not compile is
 * `MCP_TOOLS_INVALID`), its hints kept, delegate-safe only for `readOnlyHint: true` from a trusted server, and waiting for a
 * person's approval before each call (`needsApproval`) for `destructiveHint: true` from a trusted server.
 *
 * @internal
 */
export function mcpToolAsTool(
  d: McpToolDefinition,
  as: { name: string; server: string; prefix: string; trusted: boolean },
  run: (args: unknown, ctx: ToolContext) => Promise<unknown>,
): Tool {
  const annotations = { ...d.annotations } as Record<string, string | boolean>;
  try {
    return toTool({
      name: as.name,
      // deputy needs a description (delegates read it); an MCP tool may have only a title, or nothing.
      description: d.description ?? d.title ?? d.annotations.title ?? `${d.name} (a tool of ${as.prefix})`,
      input: d.inputSchema,
      // The only places an annotation decides anything, and only for a server the host vouched for: an
      // untrusted server could otherwise call its tools safe, or (harmless but noisy) destructive.
      delegateSafe: as.trusted && d.annotations.readOnlyHint === true,
      ...(as.trusted && d.annotations.destructiveHint === true ? { needsApproval: true } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      run,
    });
  } catch (cause) {
    throw new McpSourceError(
      "MCP_TOOLS_INVALID",
      as.server,
      `MCP server ${as.server}: tool "${d.name}" cannot be used: ${oneLine(cause)}`,
      { tool: d.name, cause },
    );
  }
}

async function callTool(
  c: Connection,
  mcpName: string,
  name: string,
  args: unknown,
  ctx: ToolContext,
  settings: Settings,
): Promise<unknown> {
  const failed = (code: "TOOL_FAILED" | "TOOL_RESULT_TOO_LARGE", why: string, cause?: unknown) =>
    new ToolError(code, name, `MCP tool "${mcpName}" of ${c.label}: ${why}`, cause ? { cause } : undefined);
  if (c.closed) {
    const down = await c.revive();
    if (down !== undefined) throw failed("TOOL_FAILED", down);
  }
  let answer: unknown;
  try {
    answer = await c.client.request(
      { method: "tools/call", params: { name: mcpName, arguments: args ?? {} } },
      ANY_ANSWER,
      { signal: ctx.signal, timeout: settings.callTimeoutMs },
    );
  } catch (cause) {
    // An abort is the engine's (a node timeout, a stop): it reads the signal, not this error.
    if (ctx.signal.aborted) throw cause;
    throw failed("TOOL_FAILED", `${connectReason(cause)}${c.closed ? c.lastWords() : ""}`, cause);
  }
  const outcome = readCallAnswer(answer, settings.maxResultBytes);
  if (outcome.ok) return outcome.value;
  throw failed(outcome.reason === "too_large" ? "TOOL_RESULT_TOO_LARGE" : "TOOL_FAILED", outcome.message);
}
