import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { LlamaServerError } from "../errors/llama-server-error.js";

/** Options of {@link startLlamaServer}. */
export interface StartLlamaServerOptions {
  /** Path of the GGUF model to serve. */
  model: string;
  /** Loopback port; default a free one. */
  port?: number;
  /** Extra command-line arguments, appended last. */
  args?: string[];
  /** The binary; default {@link findLlamaServerBinary}. */
  binary?: string;
  /** `--threads`; default 1 (fastest for tiny models on a small machine). */
  threads?: number;
  /** `--ctx-size`; default 8192. */
  contextSize?: number;
  /** `--parallel` slots; default 2. */
  parallel?: number;
  /** How long to wait for `/health` to answer 200; default 60 000 ms. */
  startTimeoutMs?: number;
}

/** A running llama-server. */
export interface LlamaServerProcess {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  port: number;
  pid: number;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and waits until it has exited. Idempotent. */
  stop(): Promise<void>;
  /** Sends a signal without waiting (e.g. `SIGKILL` to make it vanish mid-request). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** The last lines the server logged (for error messages). */
  logTail(): string;
}

/** The node-llama-cpp version whose llama.cpp source `scripts/llama-server.sh` builds (the cache key). */
export function nodeLlamaCppVersion(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    let dir = dirname(require.resolve("node-llama-cpp"));
    for (let i = 0; i < 5; i++, dir = dirname(dir)) {
      const pkg = join(dir, "package.json");
      if (existsSync(pkg)) {
        const json = JSON.parse(readFileSync(pkg, "utf8")) as { name?: string; version?: string };
        if (json.name === "node-llama-cpp") return json.version;
      }
    }
  } catch {
    // not installed
  }
  return undefined;
}

/**
 * Where `scripts/llama-server.sh` caches the binary: `$DEPUTY_LLAMA_SERVER` when set, else
 * `${DEPUTY_CACHE:-~/.cache/deputy}/llama-server/<node-llama-cpp version>/llama-server`. Returns `undefined`
 * when it is not there.
 */
export function findLlamaServerBinary(): string | undefined {
  const explicit = process.env.DEPUTY_LLAMA_SERVER;
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  const version = nodeLlamaCppVersion();
  if (!version) return undefined;
  const root = process.env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy");
  const path = join(root, "llama-server", version, "llama-server");
  return existsSync(path) ? path : undefined;
}

/** A free TCP port on 127.0.0.1 (asks the OS for one, then releases it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const MISSING =
  "llama-server binary not found. Build it with `bash scripts/llama-server.sh` (caches it under " +
  "~/.cache/deputy/llama-server/<node-llama-cpp version>/), or set DEPUTY_LLAMA_SERVER to a llama-server path.";

/**
 * Starts llama-server on a free loopback port with `--jinja`, waits until `/health` answers 200, and returns a
 * handle. Rejects with the server's last log lines when it exits or does not become healthy in time.
 *
 * @example
 * const server = await startLlamaServer({ model: "/tmp/tiny.gguf" });
 * try { await fetch(`${server.baseUrl}/health`); } finally { await server.stop(); }
 */
export async function startLlamaServer(options: StartLlamaServerOptions): Promise<LlamaServerProcess> {
  const binary = options.binary ?? findLlamaServerBinary();
  if (!binary) throw new LlamaServerError("LLAMA_SERVER_NOT_FOUND", MISSING);
  const port = options.port ?? (await freePort());
  const args = [
    ["--model", options.model],
    ["--host", "127.0.0.1"],
    ["--port", String(port)],
    ["--threads", String(options.threads ?? 1)],
    ["--threads-batch", String(options.threads ?? 1)],
    ["--ctx-size", String(options.contextSize ?? 8192)],
    ["--parallel", String(options.parallel ?? 2)],
    ["--jinja"],
    ["--no-webui"],
    ...(options.args ? [options.args] : []),
  ].flat();
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? code));
    child.once("error", (error) => {
      lines.push(String(error));
      resolve(null);
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const handle = makeHandle(child, baseUrl, port, exited, () => lines.join("\n"));
  try {
    await waitHealthy(baseUrl, exited, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await handle.stop();
    const code = LlamaServerError.isInstance(error) ? error.code : "LLAMA_SERVER_UNHEALTHY";
    throw new LlamaServerError(code, `${(error as Error).message}\nllama-server log:\n${handle.logTail()}`, {
      cause: error,
    });
  }
  return handle;
}

function makeHandle(
  child: ChildProcess,
  baseUrl: string,
  port: number,
  exited: Promise<number | NodeJS.Signals | null>,
  logTail: () => string,
): LlamaServerProcess {
  let stopping: Promise<void> | undefined;
  let done = false;
  void exited.then(() => (done = true));
  return {
    baseUrl,
    port,
    pid: child.pid ?? -1,
    exited,
    logTail,
    kill(signal = "SIGTERM") {
      if (!done) child.kill(signal);
    },
    stop() {
      stopping ??= (async () => {
        if (done) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

async function waitHealthy(
  baseUrl: string,
  exited: Promise<number | NodeJS.Signals | null>,
  timeoutMs: number,
): Promise<void> {
  let gone: number | NodeJS.Signals | null | undefined;
  let hasExited = false;
  void exited.then((code) => {
    gone = code;
    hasExited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited)
      throw new LlamaServerError(
        "LLAMA_SERVER_EXITED",
        `llama-server exited during startup (${String(gone)})`,
      );
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new LlamaServerError(
    "LLAMA_SERVER_UNHEALTHY",
    `llama-server did not become healthy within ${timeoutMs} ms`,
  );
}
