import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler } from "@modelcontextprotocol/server";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { PlanServer } from "./serve-plans.js";

/** Options of {@link servePlansHttp}. */
export interface ServePlansHttpOptions {
  /** The port on 127.0.0.1; 0 picks a free one. Default 0. */
  port?: number;
  /** The endpoint's path. Default `/mcp`. */
  path?: string;
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
 * Serves a plan server over Streamable HTTP on 127.0.0.1 only: the SDK's handler (the current protocol
 * revision, and the 2025 one statelessly), behind its loopback `Host` and `Origin` checks, which defeat DNS
 * rebinding and cross-site requests from a browser. A port in use is an `InvalidOptionError`.
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
  let handle: ReturnType<typeof toNodeHandler> | undefined;
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const server = createServer((req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`Not found: the MCP endpoint is ${path}\n`);
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
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url,
    port: bound,
    serve(plans) {
      handle = toNodeHandler(createMcpHandler(() => plans.createServer()));
      return { url, port: bound, close };
    },
    close,
  };
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
