import { randomUUID } from "node:crypto";
import {
  isInitializeRequest,
  legacyStatelessFallback,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from "@modelcontextprotocol/server";

/** Options of {@link legacySessions}. */
export interface LegacySessionsOptions {
  /**
   * At most this many sessions are kept: a new one then ends the least recently used session that has no
   * request in flight (clients seldom end theirs with `DELETE`), and is refused (503) when every one has.
   * Default 1000.
   */
  maxSessions?: number;
}

/** The 2025-era (`initialize` handshake) half of the HTTP endpoint: sessions, each with its own MCP server. */
export interface LegacySessions {
  /** Answers one 2025-era request (the caller routes them here with the SDK's `isLegacyRequest`). */
  fetch(request: Request): Promise<Response>;
  /** How many sessions are open. */
  readonly size: number;
  /** Ends every session (a request in flight in one is cancelled, as a client's cancellation would). */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** POSTs whose answer (an SSE stream) is still being written. */
  inFlight: number;
}

/**
 * Serves 2025-era clients in sessions (`Mcp-Session-Id`) rather than one stateless server per request, so that
 * a client's `notifications/cancelled` reaches the server instance whose handler runs the request it names:
 * over stateless HTTP it would reach a fresh instance that knows no such request, and the run would go on.
 * (2026-era clients cancel by closing the request's own stream, which the SDK's modern handler sees.) A
 * request without a session id that is not an `initialize` is served statelessly, as before sessions.
 */
export function legacySessions(
  factory: () => McpServer,
  options: LegacySessionsOptions = {},
): LegacySessions {
  const max = options.maxSessions ?? 1000;
  // Insertion order is recency: a used session moves to the end, so the first idle one is the least recent.
  const sessions = new Map<string, Session>();
  const stateless = legacyStatelessFallback(factory);

  const end = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.transport.close().catch(() => {});
    session.server.close().catch(() => {});
  };

  const open = async (request: Request): Promise<Response> => {
    if (sessions.size >= max) {
      const idle = [...sessions].find(([, s]) => s.inFlight === 0);
      if (!idle)
        return jsonRpcError(
          503,
          -32000,
          "Too many open sessions, each with a request in flight; retry later.",
        );
      end(idle[0]);
    }
    const server = factory();
    const session: Session = {
      server,
      inFlight: 0,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, session),
        onsessionclosed: (id) => end(id),
      }),
    };
    await server.connect(session.transport);
    return serve(session, request);
  };

  const serve = async (session: Session, request: Request): Promise<Response> => {
    if (request.method !== "POST") return session.transport.handleRequest(request);
    session.inFlight++;
    let response: Response;
    try {
      response = await session.transport.handleRequest(request);
    } catch (error) {
      session.inFlight--;
      throw error;
    }
    return whenWritten(response, () => session.inFlight--);
  };

  return {
    async fetch(request) {
      const id = request.headers.get("mcp-session-id");
      if (id !== null) {
        const session = sessions.get(id);
        // The spec's answer to a session the server does not know: 404, and the client starts a new one.
        if (!session) return jsonRpcError(404, -32001, "Session not found");
        sessions.delete(id);
        sessions.set(id, session);
        return serve(session, request);
      }
      if (request.method === "POST" && (await opensSession(request))) return open(request);
      return stateless(request);
    },
    get size() {
      return sessions.size;
    },
    async close() {
      for (const id of [...sessions.keys()]) end(id);
    },
  };
}

/** Whether the POST is an `initialize` (alone or in a batch); its body is read from a clone. */
async function opensSession(request: Request): Promise<boolean> {
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return false;
  }
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** The response, calling `done` once its body is written out, or the client stops reading it. */
function whenWritten(response: Response, done: () => void): Response {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };

  if (!response.body) {
    finish();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          finish();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
