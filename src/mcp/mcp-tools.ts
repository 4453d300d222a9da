import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { ToolError } from "../errors/tool-error.js";
import { toTool, type Tool, type ToolContext } from "../tools/define-tool.js";
import {
  MAX_MCP_TOOLS,
  McpAnswerError,
  readCallAnswer,
  readToolPage,
  type McpToolDefinition,
} from "./mcp-answers.js";
import { forgetChild, reapOnExit } from "./reap-children.js";

/** What every server of {@link mcpTools} may say besides where it is. */
interface McpServerCommon {
  /**
   * The prefix of its tools' names where they would clash (`github_search`). Default: the name the server gives
   * itself at the handshake, made name-safe (`secure-filesystem-server`).
   */
  name?: string;
  /**
   * `true` when the host vouches for this server: then, and only then, a tool it annotates `readOnlyHint: true`
   * is delegate-safe. Default `false`: every hint of the server is kept but decides nothing (the MCP spec: hints
   * from untrusted servers must not be relied on), so its tools need the side-effect double key.
   */
  trusted?: boolean;
}

/** An MCP server that deputy starts as a child process and talks to over its stdin/stdout. */
export interface McpStdioServer extends McpServerCommon {
  command: string;
  args?: string[];
  /**
   * Its environment, over the few variables the MCP SDK passes on by default (`HOME`, `PATH`, `USER`, …): a
   * secret in deputy's own environment reaches the server only when named here. Default: those few.
   */
  env?: Record<string, string>;
  /** Its working directory. Default: this process's. */
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer extends McpServerCommon {
  url: string | URL;
  /** Sent with every request (an `Authorization` header). Never stored or traced. Default: none. */
  headers?: Record<string, string>;
}

/** Where an MCP server is: a command to start (stdio) or a URL (Streamable HTTP). */
export type McpServerOptions = McpStdioServer | McpHttpServer;

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

/** A connected server, as {@link McpTools.servers} lists it. */
export interface McpServerInfo {
  /** The prefix its clashing tools got (see {@link McpServerCommon.name}). */
  readonly name: string;
  /** The name and version the server gave at the handshake (self-reported: never a basis for trust). */
  readonly reported: { name: string; version: string } | undefined;
  readonly trusted: boolean;
  /** The process id of a stdio server while it runs. */
  readonly pid: number | undefined;
  /** Its tools by deputy name → the name the server calls it. */
  readonly tools: ReadonlyMap<string, string>;
}

const DEFAULTS = { maxResultBytes: 1024 * 1024, connectTimeoutMs: 30_000, callTimeoutMs: 60_000 } as const;

/** deputy reads every answer itself (see mcp-answers.ts): the SDK only checks it is JSON-RPC. */
const ANY_ANSWER = z.unknown();
/** The most pages of `tools/list` read, as the MCP SDK's own `listMaxPages`. */
const MAX_PAGES = 64;

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

interface Settings {
  maxResultBytes: number;
  connectTimeoutMs: number;
  callTimeoutMs: number;
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

/**
 * How a server is named in messages: its command line with paths cut to their last part (`node index.js stdio`),
 * or its URL without credentials or query.
 */
function label(server: McpServerOptions): string {
  if ("command" in server) {
    const line = [server.command, ...(server.args ?? [])].map((a) => (a.includes("/") ? basename(a) : a));
    const text = line.join(" ");
    return `"${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
  }
  const url = new URL(String(server.url));
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The last bytes a stdio server wrote to stderr, for a message when it fails (never printed otherwise). */
const STDERR_TAIL = 2000;

/** One connected server. */
class Connection {
  closed = false;
  #closing: Promise<void> | undefined;
  #reviving: Promise<string | undefined> | undefined;
  #restarts = 0;
  #stderr = "";
  definitions: McpToolDefinition[] = [];
  prefix = "";
  readonly names = new Map<string, string>();
  client!: Client;
  transport!: Transport;

  constructor(
    readonly server: McpServerOptions,
    readonly label: string,
    readonly settings: Settings,
  ) {}

  /** Starts (or reaches) the server, does the handshake and lists its tools. */
  async open(): Promise<McpToolDefinition[]> {
    const server = this.server;
    const client = new Client({ name: "deputy", version: deputyVersion() }, { capabilities: {} });
    const transport =
      "command" in server
        ? new ReapedStdioTransport({
            command: server.command,
            ...(server.args ? { args: server.args } : {}),
            ...(server.env ? { env: server.env } : {}),
            ...(server.cwd ? { cwd: server.cwd } : {}),
            // Piped, never inherited: an untrusted server's output must not reach the terminal as it is.
            stderr: "pipe",
          })
        : new StreamableHTTPClientTransport(new URL(String(server.url)), {
            ...(server.headers ? { requestInit: { headers: server.headers } } : {}),
          });
    this.client = client;
    this.transport = transport;
    this.closed = false;
    if (transport instanceof StdioClientTransport) transport.stderr?.on("data", (c) => this.keepStderr(c));
    client.onclose = () => {
      if (this.client !== client) return;
      this.closed = true;
      // It ended (or was stopped): its pid is no longer ours to kill at exit.
      if (this.pid !== undefined) forgetChild(this.pid);
    };
    // Errors of the transport after the handshake (a line that is not JSON) reach the call that waits, if any.
    client.onerror = () => {};
    await client.connect(transport, { timeout: this.settings.connectTimeoutMs });
    return listTools(this);
  }

  /**
   * Starts a stdio server again after it died, so that a node's retry can succeed: at most
   * {@link MAX_RESTARTS} times per connection (a server that keeps dying is not restarted for ever), never after
   * `close()`, never for HTTP (the server is not ours to start), and only to serve the same tools: a restarted
   * server that lists other definitions stays down, since the plan was validated against the first ones.
   */
  revive(): Promise<string | undefined> {
    this.#reviving ??= this.#restart().finally(() => (this.#reviving = undefined));
    return this.#reviving;
  }

  /** Resolves to why the server could not be started again, or `undefined` once it runs. */
  async #restart(): Promise<string | undefined> {
    if (this.#closing !== undefined || !("command" in this.server))
      return `the server is gone${this.lastWords()}`;
    if (this.#restarts >= MAX_RESTARTS)
      return `the server is gone, restarted ${MAX_RESTARTS} times already${this.lastWords()}`;
    this.#restarts++;
    let listed: McpToolDefinition[];
    try {
      listed = await this.open();
    } catch (cause) {
      await this.client.close().catch(() => {});
      return `the server is gone and did not start again: ${oneLine(cause)}${this.lastWords()}`;
    }
    if (JSON.stringify(listed) !== JSON.stringify(this.definitions)) {
      await this.client.close().catch(() => {});
      return "the server was started again and lists other tools than it did; it stays down";
    }
    return undefined;
  }

  /** The stdio server's process id (kept once the process ends). */
  get pid(): number | undefined {
    return this.transport instanceof ReapedStdioTransport ? this.transport.spawned : undefined;
  }

  get trusted(): boolean {
    return this.server.trusted === true;
  }

  /** Keeps the tail of the server's stderr: draining it keeps a chatty server from blocking on a full pipe. */
  keepStderr(chunk: Buffer | string): void {
    this.#stderr = (this.#stderr + String(chunk)).slice(-STDERR_TAIL);
  }

  /** The server's last stderr line, as a clause for a message (`: Error: EACCES …`), or nothing. */
  lastWords(): string {
    const line = this.#stderr.trim().split(/\r?\n/).pop()?.trim();
    return line ? ` (its stderr: ${line.slice(0, 300)})` : "";
  }

  info(): McpServerInfo {
    const reported = this.client.getServerVersion();
    return {
      name: this.prefix,
      reported: reported ? { name: String(reported.name), version: String(reported.version) } : undefined,
      trusted: this.trusted,
      pid: this.closed ? undefined : this.pid,
      tools: new Map(this.names),
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      // A restart under way finishes first, so the process it starts is the one stopped here.
      await this.#reviving?.catch(() => {});
      const pid = this.pid;
      this.closed = true;
      if (this.transport instanceof StreamableHTTPClientTransport)
        await this.transport.terminateSession().catch(() => {});
      await this.client?.close().catch(() => {});
      if (pid !== undefined) forgetChild(pid);
    })();
    return this.#closing;
  }
}

/** The SDK's stdio transport, its child listed for killing at exit from the moment it is spawned. */
class ReapedStdioTransport extends StdioClientTransport {
  /** The child's pid, kept after it ends (the SDK's `pid` forgets it). */
  spawned: number | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.spawned = this.pid ?? undefined;
    if (this.spawned !== undefined) reapOnExit(this.spawned);
  }
}

/** How often a dead stdio server is started again for the calls that follow (see `Connection.revive`). */
const MAX_RESTARTS = 3;

async function connect(server: McpServerOptions, settings: Settings): Promise<Connection> {
  const where = label(server);
  const connection = new Connection(server, where, settings);
  try {
    connection.definitions = await connection.open();
  } catch (cause) {
    await connection.close();
    if (McpSourceError.isInstance(cause)) throw cause;
    throw new McpSourceError(
      "MCP_CONNECT_FAILED",
      where,
      `Could not connect to MCP server ${where}: ${oneLine(cause)}${connection.lastWords()}`,
      { cause },
    );
  }
  return connection;
}

async function listTools(connection: Connection): Promise<McpToolDefinition[]> {
  const { client, label: where, settings } = connection;
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.request(
      { method: "tools/list", ...(cursor ? { params: { cursor } } : {}) },
      ANY_ANSWER,
      { timeout: settings.connectTimeoutMs },
    );
    let read;
    try {
      read = readToolPage(answer);
    } catch (error) {
      if (!(error instanceof McpAnswerError)) throw error;
      throw new McpSourceError("MCP_TOOLS_INVALID", where, `MCP server ${where}: ${error.message}.`, {
        ...(error.tool !== undefined ? { tool: error.tool } : {}),
      });
    }
    tools.push(...read.tools);
    if (tools.length > MAX_MCP_TOOLS)
      throw new McpSourceError(
        "MCP_TOOLS_INVALID",
        where,
        `MCP server ${where} lists more than ${MAX_MCP_TOOLS} tools.`,
      );
    cursor = read.nextCursor;
    if (!cursor) return tools;
  }
  throw new McpSourceError(
    "MCP_TOOLS_INVALID",
    where,
    `MCP server ${where}: its tool list goes on past ${MAX_PAGES} pages.`,
  );
}

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
 * `MCP_TOOLS_INVALID`), its hints kept, and delegate-safe only for `readOnlyHint: true` from a trusted server.
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
      // The one place an annotation decides anything, and only for a server the host vouched for.
      delegateSafe: as.trusted && d.annotations.readOnlyHint === true,
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
    throw failed("TOOL_FAILED", `${oneLine(cause)}${c.closed ? c.lastWords() : ""}`, cause);
  }
  const outcome = readCallAnswer(answer, settings.maxResultBytes);
  if (outcome.ok) return outcome.value;
  throw failed(outcome.reason === "too_large" ? "TOOL_RESULT_TOO_LARGE" : "TOOL_FAILED", outcome.message);
}

/** An error as one line, cut short: servers write what they like into their messages. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, " ").trim() || "unknown error";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

let version: string | undefined;
function deputyVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
  return version;
}
