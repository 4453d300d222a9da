import { readFileSync } from "node:fs";
import { InvalidOptionError } from "../errors/invalid-option-error.js";

/** An HTTP header name (RFC 9110 `token`). */
const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the MCP client sets itself: one given here would break the protocol, not authorise it. */
const RESERVED = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "host",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "transfer-encoding",
]);

/**
 * The headers of `--mcp-header 'Name: value'` (repeatable) and `--mcp-headers-file FILE` (one `Name: value` a
 * line; blank lines and `#` comments skipped), for the MCP servers a command reaches over HTTP. A value is a
 * secret (a bearer token): no message quotes it, and nothing keeps it (see `loadToolSources`). A malformed line,
 * a header the client sets itself, one named twice or a file that cannot be read is an `InvalidOptionError`
 * naming the flag and, at most, the header's name. `undefined` when neither flag is given.
 */
export function mcpHeadersOf(flags: {
  mcpHeader?: readonly string[];
  mcpHeadersFile?: string;
}): Record<string, string> | undefined {
  if (!flags.mcpHeader?.length && flags.mcpHeadersFile === undefined) return undefined;
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  const add = (line: string, flag: string) => {
    // Without a colon the line may be a bare token: no message names any part of it.
    const colon = line.indexOf(":");
    const name = line.slice(0, Math.max(colon, 0)).trim();
    const value = line.slice(colon + 1).trim();
    if (colon < 0 || !NAME.test(name))
      throw new InvalidOptionError(
        flag,
        "a header as Name: value (a name of letters, digits and -)",
        "(hidden)",
      );
    if (value === "" || /[\0\r\n]/.test(value))
      throw new InvalidOptionError(flag, `a value for the header ${name} on one line`, "(hidden)");
    const key = name.toLowerCase();
    if (RESERVED.has(key))
      throw new InvalidOptionError(flag, `a header the MCP client does not set itself (not ${name})`, name);
    if (seen.has(key)) throw new InvalidOptionError(flag, `each header once (${name} is given twice)`, name);
    seen.add(key);
    headers[name] = value;
  };
  for (const line of flags.mcpHeader ?? []) add(line, "--mcp-header");
  if (flags.mcpHeadersFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.mcpHeadersFile, "utf8");
    } catch {
      throw new InvalidOptionError("--mcp-headers-file", "a readable file of headers", flags.mcpHeadersFile);
    }
    for (const line of text.split(/\r?\n/))
      if (line.trim() !== "" && !line.trimStart().startsWith("#")) add(line, "--mcp-headers-file");
  }
  return headers;
}

/**
 * Refuses headers that would go to MCP servers of more than one origin: a token for one server must not reach
 * another (every `mcp+http(s)` server of a command gets the same headers), nor be given with no server to
 * send it to.
 */
export function checkMcpHeaderOrigins(urls: readonly string[]): void {
  const origins = [...new Set(urls.map((u) => new URL(u).origin))];
  if (origins.length === 0)
    throw new InvalidOptionError(
      "--mcp-header",
      "given with an MCP server over HTTP (--tools mcp+http(s)://…) to send it to",
      "(hidden)",
    );
  if (origins.length > 1)
    throw new InvalidOptionError(
      "--mcp-header",
      `given with MCP servers of one origin only (every mcp+http(s) server gets the headers; these are ${origins.join(", ")})`,
      "(hidden)",
    );
}
