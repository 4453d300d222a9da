import { resolve } from "node:path";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { checkMcpHeaderOrigins } from "../mcp/mcp-headers.js";
import { isMcpSpec, parseMcpSpec, redactMcpSpec } from "../mcp/mcp-source-spec.js";
import type { NodeType } from "../plan/node-type.js";
import type { Tool } from "../tools/define-tool.js";
import { loadToolsModule } from "../tools/load-tools-module.js";

/** What the `--tools` values of a command give: the tools, what the modules export besides, and `close()`. */
export interface ToolSources {
  tools: Tool[];
  /** The modules' `agents` exports, merged (a later module's agent of the same name wins). */
  agents?: Record<string, unknown>;
  /** The modules' `nodeTypes` exports, in order. */
  nodeTypes?: NodeType<any>[];
  /**
   * The values as a run records them, so that a resume in another directory loads the same: modules as
   * absolute paths, MCP servers as written (a URL's password left out).
   */
  recorded: string[];
  /** Stops the MCP servers that were started. */
  close(): Promise<void>;
}

/**
 * Loads every `--tools` value, in order: tools modules (`.js`, `.mjs`, `.ts`) and MCP servers (`mcp:stdio:…`,
 * `mcp+http(s)://…`, see `parseMcpSpec`). An MCP tool whose name clashes with a module's tool or another
 * server's gets its server's name in front. A stdio server starts in `cwd` (the run's directory, also on a
 * resume) with this process's environment, as a command typed in the shell would: that is what a user who
 * writes `API_KEY=… deputy run --tools "mcp:stdio:server"` expects. `headers` (`--mcp-header`) go with every
 * request to the servers over HTTP, which must then be of one origin; they are a secret, and never part of
 * `recorded`.
 */
export async function loadToolSources(
  values: readonly string[],
  context: { cwd?: string; headers?: Record<string, string> } = {},
): Promise<ToolSources> {
  const tools: Tool[] = [];
  const recorded: string[] = [];
  const specs: string[] = [];
  let agents: Record<string, unknown> | undefined;
  const nodeTypes: NodeType<any>[] = [];
  // Before anything is imported or started: headers go to the servers over HTTP of one origin only.
  if (context.headers)
    checkMcpHeaderOrigins(
      values.filter(isMcpSpec).flatMap((spec) => {
        const server = parseMcpSpec(spec);
        return "url" in server ? [String(server.url)] : [];
      }),
    );
  for (const value of values) {
    if (isMcpSpec(value)) {
      specs.push(value);
      recorded.push(redactMcpSpec(value));
      continue;
    }
    const mod = await loadToolsModule(value);
    tools.push(...mod.tools);
    recorded.push(resolve(value));
    if (mod.exports.agents && typeof mod.exports.agents === "object")
      agents = { ...agents, ...(mod.exports.agents as Record<string, unknown>) };
    // Node types of the user's own (`defineNodeType`), registered beside the built-in ones.
    if (Array.isArray(mod.exports.nodeTypes)) nodeTypes.push(...(mod.exports.nodeTypes as NodeType<any>[]));
  }
  let close = async () => {};
  if (specs.length > 0) {
    for (const spec of specs)
      if (/^mcp[^:]*:\/\/[^/@]*:\*\*\*@/.test(spec))
        throw new McpSourceError(
          "MCP_SOURCE_INVALID",
          spec,
          `The MCP server URL ${spec} had a password, which deputy does not keep with a run: pass --tools with it again.`,
        );
    const env = Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    const cwd = context.cwd ?? process.cwd();
    const headers = context.headers;
    const servers = specs.map((spec) => parseMcpSpec(spec, { env, cwd, ...(headers ? { headers } : {}) }));
    // Loaded only when a server is named: the MCP SDK is not needed otherwise.
    const { mcpTools } = await import("../mcp/mcp-tools.js");
    const mcp = await mcpTools(servers, { besides: tools });
    tools.push(...mcp);
    close = () => mcp.close();
  }
  return {
    tools,
    ...(agents ? { agents } : {}),
    ...(nodeTypes.length ? { nodeTypes } : {}),
    recorded,
    close,
  };
}
