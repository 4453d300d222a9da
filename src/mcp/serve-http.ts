import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, isLegacyRequest } from "@modelcontextprotocol/server";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { legacySessions, type LegacySessions } from "./serve-http-sessions.js";
import type { PlanServer } from "./serve-plans.js";

/** Options of {@link servePlansHttp}. */
export interface ServePlansHttpOptions {
  /** The port on 127.0.0.1; 0 picks a free one. Default 0. */
  port?: number;
  /** The endpoint's path. Default `/mcp`. */
  path?: string;
  /**
   * A bearer token every request must carry (`Authorization: Bearer TOKEN`), compared in constant time; a
   * request without it, or with another, is a 401. Default: none — any local process may call the plans
   * (`deputy mcp serve --http` always sets one).
   */
  token?: string;
}

/** A plan server listening for Streamable HTTP. */
export interface RunningPlanServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:4681/mcp`. */
  url: string;
  port: number;
  /** Stops listening and drops open connections (runs in flight are the plan server's: close it too). */
  close(): Promise<void>;
}

/** A port bound for a plan server that is not there yet (see {@link listenForPlans}). */
export interface BoundPlanPort {
  /** The MCP endpoint, e.g. `http://127.0.0.1:4681/mcp`. */
  url: string;
  port: number;
  /** Starts answering with `plans` (until then every request is a 503). */
  serve(plans: PlanServer): RunningPlanServer;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Serves a plan server over Streamable HTTP on 127.0.0.1 only: the SDK's handler for the current protocol
 * revision, and 2025-era clients in sessions (so that their cancellations reach the run, see
 * `legacySessions`), behind the SDK's loopback `Host` and `Origin` checks, which defeat DNS rebinding and
 * cross-site requests from a browser. A port in use is an `InvalidOptionError`.
 */
export async function servePlansHttp(
  plans: PlanServer,
  options: ServePlansHttpOptions = {},
): Promise<RunningPlanServer> {
  return (await listenForPlans(options)).serve(plans);
}

/**
 * Binds the port first and serves later, so that a caller can refuse a port in use (an `InvalidOptionError`)
 * before it creates anything else, such as the run store (`deputy mcp serve --http` does).
 */
export async function listenForPlans(options: ServePlansHttpOptions = {}): Promise<BoundPlanPort> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidOptionError("port", "an integer from 0 to 65535", port);
  const path = options.path ?? "/mcp";
  if (options.token !== undefined && (typeof options.token !== "string" || options.token.length < 16))
    throw new InvalidOptionError("token", "a string of at least 16 characters", "(hidden)");
  const expected = options.token === undefined ? undefined : digest(options.token);
  let handle: ReturnType<typeof toNodeHandler> | undefined;
  let stopServing = async () => {};
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const server = createServer((req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not found: the MCP endpoint is ${path}\n`);
      return;
    }
    if (expected && !carriesToken(req, expected)) {
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="deputy"' })
        .end(
          "Unauthorized: send the token deputy mcp serve was given or printed, as Authorization: Bearer TOKEN\n",
        );
      return;
    }
    if (!handle) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "1" }).end("Starting\n");
      return;
    }
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await listen(server, port);
  const bound = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${bound}${path}`;
  const close = async () => {
    await stopServing();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  return {
    url,
    port: bound,
    serve(plans) {
      const factory = () => plans.createServer();
      const modern = createMcpHandler(factory, { legacy: "reject" });
      const legacy: LegacySessions = legacySessions(factory);
      handle = toNodeHandler({
        fetch: async (request, options) =>
          (await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request, options),
      });
      stopServing = async () => {
        await legacy.close();
        await modern.close();
      };
      return { url, port: bound, close };
    },
    close,
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether the request's `Authorization: Bearer …` is the token: digests compared, so in constant time. */
function carriesToken(req: IncomingMessage, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.removeListener("listening", onListening);
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES"
          ? new InvalidOptionError(
              "port",
              `a port free on 127.0.0.1 (${error.code === "EADDRINUSE" ? "in use" : "not allowed"})`,
              port,
            )
          : error,
      );
    };
    const onListening = () => {
      server.removeListener("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, "127.0.0.1");
  });
}
