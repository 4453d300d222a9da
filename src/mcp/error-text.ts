/**
 * Why reaching an MCP server failed, in words a person can act on. fetch's own message is "fetch failed" (the
 * reason is a `code` a few causes down), and an HTTP server that is not an MCP endpoint answers with a whole web
 * page, which the client puts in its message: the network code and the HTTP status say more than either.
 */
export function connectReason(error: unknown): string {
  const code = networkCode(error);
  if (code === "ECONNREFUSED")
    return "connection refused: nothing listens there (is the server running, and are host and port right?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found (is the URL's host right?)";
  if (code === "ECONNRESET") return "the server closed the connection";
  if (code !== undefined && /^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/.test(code))
    return "the connection timed out (is the host reachable?)";
  if (code !== undefined && /^(ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code))
    return `TLS failed (${code}): the server's certificate is not trusted here`;
  const message = error instanceof Error ? error.message : String(error);
  if (/<(!doctype\s+html|html[\s>])/i.test(message)) {
    const status = httpStatus(error, message);
    return `the server answered ${status ? `HTTP ${status}` : "an error"} with a web page, not MCP (is the URL's path the server's MCP endpoint, e.g. /mcp?)`;
  }
  // fetch says "fetch failed" and keeps what failed in its cause ("bad port", "invalid URL").
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (message === "fetch failed" && cause instanceof Error) return `fetch failed: ${oneLine(cause)}`;
  return oneLine(error);
}

/** The first `code` such as ECONNREFUSED on the error or its causes (AggregateError's errors too), bounded. */
function networkCode(error: unknown): string | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 16; seen++) {
    const next = queue.shift();
    if (typeof next !== "object" || next === null) continue;
    const { code, cause, errors } = next as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors.slice(0, 4));
  }
  return undefined;
}

/** The HTTP status an MCP client error carries (its `data.status`, or `HTTP 404` in its message). */
function httpStatus(error: unknown, message: string): number | undefined {
  const data = (error as { data?: { status?: unknown } } | null)?.data;
  if (typeof data?.status === "number") return data.status;
  const match = /\bHTTP (\d{3})\b/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** An error as one line, cut short: servers write what they like into their messages. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, " ").trim() || "unknown error";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
