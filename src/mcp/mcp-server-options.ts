/** Where an MCP server is, and what deputy says about one it connected to (the per-server options of `mcpTools`). */

/** What every server of `mcpTools` may say besides where it is. */
export interface McpServerCommon {
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

/** A connected server, as `McpTools.servers` lists it. */
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
