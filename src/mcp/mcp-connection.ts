/**
 * One connected MCP server (stdio or Streamable HTTP): starting it, the handshake, its tool list, restarting a
 * stdio server that died, and closing it. `mcp-tools.ts` turns its tools into deputy tools.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { MAX_MCP_TOOLS, McpAnswerError, readToolPage, type McpToolDefinition } from "./mcp-answers.js";
import type { McpServerInfo, McpServerOptions } from "./mcp-server-options.js";
import { connectReason, oneLine } from "./error-text.js";
import { forgetChild, reapOnExit } from "./reap-children.js";

/** The bounds every connection of one `mcpTools` call keeps to. */
export interface Settings {
  maxResultBytes: number;
  connectTimeoutMs: number;
  callTimeoutMs: number;
}

/** deputy reads every answer itself (see mcp-answers.ts): the SDK only checks it is JSON-RPC. */
export const ANY_ANSWER = z.unknown();
/** The most pages of `tools/list` read, as the MCP SDK's own `listMaxPages`. */
const MAX_PAGES = 64;

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
export class Connection {
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

export async function connect(server: McpServerOptions, settings: Settings): Promise<Connection> {
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
      `Could not connect to MCP server ${where}: ${connectReason(cause)}${connection.lastWords()}`,
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

let version: string | undefined;
function deputyVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
  return version;
}
