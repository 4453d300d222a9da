import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { readPlanFolder } from "../../authoring/named-plans.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { CliContext } from "../cli-context.js";
import { storeLabel } from "../run-setup.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";
import { isPostgresUrl, openStore, setupRun, storeLocation, type RunFlags } from "../../compose/index.js";

interface McpServeFlags extends RunFlags {
  plans: string;
  http?: string;
  consoleUrl?: string;
  grace?: string;
  tokenFile?: string;
  tokenEnv?: string;
  statusAnyRun?: boolean;
}

/**
 * `deputy mcp serve --plans DIR --tools T [--delegate …] [--store …] [--http PORT] [--console-url URL]`: every
 * plan in DIR as an MCP tool, over stdio (default) or Streamable HTTP on 127.0.0.1. It runs until the client
 * closes stdin or SIGINT/SIGTERM; runs in flight then get `--grace` seconds and are committed (resumable).
 */
export function registerMcpServe(program: Command, ctx: CliContext): void {
  const mcp = program.command("mcp").description("deputy and the Model Context Protocol");
  withGraceFlag(
    withRunFlags(
      mcp
        .command("serve")
        .description("serve every plan in a folder as an MCP tool (stdio, or Streamable HTTP with --http)"),
    ),
  )
    .requiredOption(
      "--plans <dir>",
      "the folder of plans to serve: each .json file is one tool, named by its plan's `name`",
    )
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option(
      "--http <port>",
      "serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0: any free port)",
    )
    .option(
      "--token-file <file>",
      "with --http: the bearer token clients must send, read from a file (default: a new one, printed at start)",
    )
    .option("--token-env <var>", "with --http: the bearer token, read from this environment variable")
    .option(
      "--status-any-run",
      "let deputy_run_status read any run of the served plans in the store, not only those this server started",
    )
    .option("--console-url <url>", "the address of a running `deputy ui`, to link escalations to its inbox")
    .action(async (flags: McpServeFlags) => {
      const grace = graceSeconds(flags.grace);
      const port = flags.http === undefined ? undefined : parsePort(flags.http);
      const token = port === undefined ? undefined : bearerToken(flags);
      const consoleUrl = flags.consoleUrl === undefined ? undefined : parseConsoleUrl(flags.consoleUrl);
      const found = readPlanFolder(flags.plans);
      // The SDK and the serving code load only for this command (every other command starts without them).
      const [{ servePlans }, { listenForPlans }, { servePlansStdio }] = await Promise.all([
        import("../../mcp/serve-plans.js"),
        import("../../mcp/serve-http.js"),
        import("../../mcp/serve-stdio.js"),
      ]);
      const { options, close } = await setupRun(flags);
      const restoreConsole = port === undefined ? consoleToStderr() : () => {};
      try {
        const plans = found.map((p) => p.plan);
        const sources = found.map((p) => resolve(p.path));
        // Every plan is checked before the store is opened: bad input creates nothing.
        servePlans({ ...options, plans, sources });
        // And the port is bound before the store is opened: a port in use creates nothing either.
        const bound = port === undefined ? undefined : await listenForPlans({ port, token: token!.value });
        const location = storeLocation(flags.store);
        const store = await openStoreOrClose(flags.store, bound);
        try {
          const served = servePlans({
            ...options,
            plans,
            sources,
            store,
            decide: {
              ...(location === false
                ? {}
                : { store: isPostgresUrl(location) ? storeLabel(location) : resolve(location) }),
              ...(consoleUrl ? { consoleUrl } : {}),
              // A resume loads only the tools it is given: the command line names this server's again.
              tools: options.meta?.toolSources ?? (options.meta?.tools ? [options.meta.tools] : []),
              // The headers too, by the file they are in or by name: a value is a secret, and never in an answer.
              resumeArgs: [
                ...(flags.mcpHeadersFile !== undefined
                  ? ["--mcp-headers-file", resolve(flags.mcpHeadersFile)]
                  : []),
                ...(flags.mcpHeader ?? []).flatMap((h) => [
                  "--mcp-header",
                  `${h.slice(0, h.indexOf(":"))}: …`,
                ]),
              ],
            },
            serverInfo: { name: "deputy", version: packageVersion() },
            ...(flags.statusAnyRun ? { statusOfAnyRun: true } : {}),
            onCancel: ({ runId, plan }) =>
              ctx.stderr(
                `deputy mcp: run ${runId} of ${plan}: the client cancelled it (or went away); it stops as on SIGINT and stays resumable (deputy resume ${runId})\n`,
              ),
          });
          const names = served.tools.map((t) => t.name).join(", ");
          const stopped = stopSignals(ctx, grace);
          try {
            if (bound !== undefined) {
              const http = bound.serve(served);
              ctx.stderr(`deputy mcp: serving ${served.tools.length} plan(s) (${names}) at ${http.url}\n`);
              // A token made here is printed once, as it is (the redactor would hide it): clients need it.
              if (token!.generated)
                ctx.rawStderr(
                  `deputy mcp: clients send "Authorization: Bearer ${token!.value}" (new at every start; --token-file or --token-env to fix one)\n`,
                );
              await stopped.first;
              await served.close({ graceMs: grace * 1000 });
              await http.close();
            } else {
              const stdio = servePlansStdio(served, {
                onError: (e) => ctx.stderr(`deputy mcp: ${e.message}\n`),
              });
              ctx.stderr(`deputy mcp: serving ${served.tools.length} plan(s) (${names}) over stdio\n`);
              await Promise.race([stopped.first, stdio.ended]);
              await served.close({ graceMs: grace * 1000 });
              await stdio.close();
            }
          } finally {
            stopped.dispose();
          }
        } finally {
          await store.close();
          await bound?.close();
        }
      } finally {
        restoreConsole();
        await close();
      }
    });
}

/** The first SIGINT/SIGTERM ends serving (runs in flight get the grace period); a second one exits at once. */
function stopSignals(ctx: CliContext, graceSeconds: number) {
  let received: NodeJS.Signals | undefined;
  let onFirst: () => void = () => {};
  const first = new Promise<void>((resolve) => (onFirst = resolve));
  const onSignal = (name: NodeJS.Signals) => {
    if (received) {
      ctx.stderr(`deputy mcp: ${name} again: exiting now.\n`);
      process.exit(130);
    }
    received = name;
    ctx.stderr(`deputy mcp: ${name}: no new runs; runs in flight have ${graceSeconds}s to finish.\n`);
    onFirst();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    first,
    dispose() {
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    },
  };
}

/**
 * Over stdio, stdout carries the protocol: a tools module's `console.log` would corrupt it, so the console's
 * stdout methods write to stderr while serving.
 */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(n) || n > 65535)
    throw new InvalidOptionError("--http", "a port from 0 to 65535", text);
  return n;
}

/** An http(s) URL; its fragment and query (where `deputy ui` prints its token) are never repeated in answers. */
function parseConsoleUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError("--console-url", "an http:// or https:// URL of `deputy ui`", text);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidOptionError("--console-url", "an http:// or https:// URL of `deputy ui`", text);
  return `${url.origin}${url.pathname}`;
}

/** deputy's version, from the package.json above `dist/` (and `src/`). */
function packageVersion(): string {
  const text = readFileSync(new URL("../../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

/** The run store, or the bound port closed again when the store cannot be opened. */
async function openStoreOrClose(
  store: string | false | undefined,
  bound: { close(): Promise<void> } | undefined,
): Promise<ReturnType<typeof openStore>> {
  try {
    return openStore(store);
  } catch (error) {
    await bound?.close();
    throw error;
  }
}

/** The bearer token `--http` requires: from `--token-file` or `--token-env`, else a new random one. */
function bearerToken(flags: McpServeFlags): { value: string; generated: boolean } {
  if (flags.tokenFile !== undefined && flags.tokenEnv !== undefined)
    throw new InvalidOptionError(
      "--token-file",
      "either --token-file or --token-env, not both",
      flags.tokenFile,
    );
  let value: string | undefined;
  if (flags.tokenFile !== undefined) {
    try {
      value = readFileSync(flags.tokenFile, "utf8").trim();
    } catch {
      throw new InvalidOptionError("--token-file", "a readable file holding the token", flags.tokenFile);
    }
  } else if (flags.tokenEnv !== undefined) {
    value = process.env[flags.tokenEnv]?.trim();
    if (!value)
      throw new InvalidOptionError("--token-env", "the name of a set environment variable", flags.tokenEnv);
  }
  if (value === undefined) return { value: randomBytes(24).toString("base64url"), generated: true };
  if (value.length < 16 || /\s/.test(value))
    throw new InvalidOptionError(
      flags.tokenFile !== undefined ? "--token-file" : "--token-env",
      "a token of at least 16 characters without spaces",
      "(hidden)",
    );
  return { value, generated: false };
}
