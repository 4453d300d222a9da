import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { McpSourceError } from "../errors/mcp-source-error.js";
import type { McpServerOptions } from "./mcp-tools.js";

/**
 * The CLI's way to name an MCP server as a tool source (`--tools SPEC`, beside tools modules):
 *
 * - `mcp:stdio:COMMAND ARGS…` starts COMMAND with ARGS, split as a POSIX shell splits words (whitespace;
 *   `'single'` and `"double"` quotes; a backslash escapes the next character; no expansion of `$`, `~` or `*`);
 * - `mcp+http://HOST…` and `mcp+https://HOST…` reach a Streamable HTTP server at the URL after `mcp+`;
 * - `+trusted` right after `mcp` (`mcp+trusted:stdio:…`, `mcp+trusted+https://…`) marks the server trusted:
 *   its `readOnlyHint` annotations then make tools delegate-safe. Trust is part of what the host typed, never a
 *   name the server reports about itself (which any server can claim).
 */
const SPEC = /^mcp(\+trusted)?(?::stdio:([\s\S]*)|\+(https?:\/\/[\s\S]*))$/;

/** True for a `--tools` value that names an MCP server rather than a tools module. */
export function isMcpSpec(value: string): boolean {
  return /^mcp(\+trusted)?[:+]/.test(value);
}

/** Options of {@link parseMcpSpec}. */
export interface McpSpecContext {
  /** The environment a stdio server gets. Default: the MCP SDK's few inherited variables. */
  env?: Record<string, string>;
  /** The directory a stdio server starts in. Default: this process's. */
  cwd?: string;
  /** Headers every request to a server over HTTP carries (`--mcp-header`). Default: none. */
  headers?: Record<string, string>;
}

/** A `--tools mcp:…` value as the server options of `mcpTools`; a malformed one is `MCP_SOURCE_INVALID`. */
export function parseMcpSpec(spec: string, context: McpSpecContext = {}): McpServerOptions {
  const match = SPEC.exec(spec);
  const bad = (why: string) =>
    new McpSourceError(
      "MCP_SOURCE_INVALID",
      spec,
      `\`--tools ${spec.slice(0, 80)}\` ${why}: write mcp:stdio:COMMAND ARGS…, mcp+http://HOST/PATH or mcp+https://HOST/PATH (mcp+trusted… to trust the server).`,
    );
  if (!match) throw bad("is not an MCP server");
  const trusted = match[1] !== undefined;
  if (match[3] !== undefined) {
    let url: URL;
    try {
      url = new URL(match[3]);
    } catch {
      throw bad("has no valid URL");
    }
    return {
      url: url.href,
      ...(context.headers ? { headers: context.headers } : {}),
      ...(trusted ? { trusted } : {}),
    };
  }
  const split = splitWords(match[2] ?? "");
  if (typeof split === "string") throw bad(split);
  const [command, ...args] = split;
  if (command === undefined) throw bad("names no command");
  return {
    command,
    args,
    ...(context.env ? { env: context.env } : {}),
    ...(context.cwd ? { cwd: context.cwd } : {}),
    ...(trusted ? { trusted } : {}),
  };
}

/**
 * Splits a command line into words as a POSIX shell does, without expanding anything: whitespace separates
 * words; inside `'…'` every character is itself; inside `"…"` a backslash escapes `"`, `\`, `$` and `` ` ``;
 * elsewhere a backslash escapes any character. An unclosed quote or a trailing backslash throws.
 */
export function splitCommandLine(text: string): string[] {
  const split = splitWords(text);
  if (typeof split === "string")
    throw new InvalidOptionError("command line", `words with every quote closed (it ${split})`, text);
  return split;
}

/** The words, or what is wrong with the text ("has an unclosed ' quote"). */
function splitWords(text: string): string[] | string {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "\\") {
      if (i + 1 >= text.length) return "ends in a backslash";
      word += text[++i];
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return "has an unclosed ' quote";
      word += text.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length && '"\\$`'.includes(text[j + 1]!)) j++;
        word += text[j];
      }
      if (j >= text.length) return 'has an unclosed " quote';
      i = j;
    } else word += ch;
  }
  if (inWord) words.push(word);
  return words;
}

/** The spec as a run may keep it: a URL's password replaced by `***` (`mcp+https://me:***@host/mcp`). */
export function redactMcpSpec(spec: string): string {
  return spec.replace(/^(mcp(?:\+trusted)?\+https?:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}
