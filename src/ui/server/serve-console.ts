import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { RunStore } from "../../store/run-store.js";
import { createConsoleApp } from "./console-app.js";
import { loadAssets } from "./static-assets.js";

/** Options of {@link serveConsole}. */
export interface ServeConsoleOptions {
  store: RunStore;
  /** Port to listen on; 0 picks a free one. Default 4680. */
  port?: number;
  /** Address to bind. Default `127.0.0.1` (loopback only): anything else exposes runs to the network. */
  host?: string;
  /** Tools module for checking corrected calls and resuming. Default: each run's own. */
  tools?: string;
  /** A JSONL trace file for the trace viewer. */
  traces?: string;
  /** Model files whose learning history (`deputy learn`) a node's page shows. */
  learn?: readonly string[];
  /** Folder of the built client. Default: `dist/ui/public` of this package. */
  assetsDir?: string;
  /** The token; default: 24 random bytes, new at every start. @internal */
  token?: string;
}

/** A running console. */
export interface RunningConsole {
  /** The URL to open, with the token in its fragment (never sent to the server in a request line). */
  url: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

/** Serves the console until `close()`. */
export async function serveConsole(options: ServeConsoleOptions): Promise<RunningConsole> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? randomBytes(24).toString("base64url");
  const loopback = ["127.0.0.1", "localhost", "::1"];
  const hostnames = loopback.includes(host) ? loopback : [host];
  const { app, drain } = createConsoleApp({
    store: options.store,
    token,
    hostnames,
    assets: loadAssets(options.assetsDir),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.traces ? { traces: options.traces } : {}),
    ...(options.learn ? { learn: options.learn } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 4680, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A browser keeps idle connections open; without this, close() would wait for them.
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      await drain();
    },
  };
}
