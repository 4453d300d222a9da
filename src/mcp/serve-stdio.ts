import type { Readable, Writable } from "node:stream";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { PlanServer } from "./serve-plans.js";

/** Options of {@link servePlansStdio}. */
export interface ServePlansStdioOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Nothing else may write to it: it carries the protocol. */
  stdout?: Writable;
  /** Told of errors outside any request (a message that is not JSON-RPC, a write that failed). */
  onError?: (error: Error) => void;
}

/** A plan server on stdio. */
export interface StdioPlanServer {
  /** Settles when the client closes its end (stdin ends), as the MCP stdio binding says a server then exits. */
  readonly ended: Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** Serves a plan server over stdio (the SDK's entry: the current protocol revision and the 2025 handshake). */
export function servePlansStdio(plans: PlanServer, options: ServePlansStdioOptions = {}): StdioPlanServer {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
  });
  const handle = serveStdio(() => plans.createServer(), {
    transport: new StdioServerTransport(stdin, stdout),
    ...(options.onError ? { onerror: options.onError } : {}),
  });
  return { ended, close: () => handle.close() };
}
