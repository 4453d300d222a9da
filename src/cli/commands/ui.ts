import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import { serveConsole } from "../../ui/server/serve-console.js";
import type { CliContext } from "../cli-context.js";
import { storeLabel } from "../run-setup.js";
import { isPostgresUrl, openStore, storeLocation } from "../../compose/index.js";

interface UiFlags {
  store?: string;
  port: string;
  host: string;
  open?: boolean;
  tools?: string;
  traces?: string;
  learn: string[];
}

/**
 * `deputy ui [--store FILE|URL] [--port N] [--open]`: serves the console over the run store (an SQLite file or a
 * PostgreSQL URL) on 127.0.0.1 until interrupted. The URL it prints carries the per-start token the page needs for every API call.
 */
export function registerUi(program: Command, ctx: CliContext): void {
  program
    .command("ui")
    .description("serve a local web console: runs, graphs, traces, spend and the escalation inbox")
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--port <n>", "port to listen on (0: any free port)", "4680")
    .option("--host <address>", "address to bind (anything but loopback exposes your runs)", "127.0.0.1")
    .option("--tools <module>", "tools module to check corrections and resume with (default: each run's)")
    .option("--traces <file>", "a JSONL trace file for the trace viewer (default: each run's)")
    .option(
      "--learn <model>",
      "a node's model file whose deputy learn history (MODEL.learn.jsonl) the node's page shows; repeatable",
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option("--open", "open the console in a browser")
    .action(async (flags: UiFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new InvalidOptionError("--port", "an integer from 0 to 65535", flags.port);
      const location = storeLocation(flags.store) || "";
      if (!isPostgresUrl(location) && !existsSync(location))
        throw new RunError(
          "STORE_NOT_FOUND",
          `No run store at ${storeLabel(location)} (run a plan first, or pass --store).`,
        );
      for (const [option, path] of [
        ["--tools", flags.tools],
        ["--traces", flags.traces],
      ] as const)
        if (path !== undefined && !existsSync(path))
          throw new InvalidOptionError(option, "an existing file", path);
      for (const model of flags.learn)
        if (!existsSync(model)) throw new InvalidOptionError("--learn", "an existing model file", model);
      const store = openStore(location, { mustExist: true });
      let running;
      try {
        // A store that cannot be read fails here, in one line, not at the first page load.
        await store.list({ limit: 1 });
        running = await serveConsole({
          store,
          port,
          host: flags.host,
          ...(flags.tools ? { tools: flags.tools } : {}),
          ...(flags.traces ? { traces: flags.traces } : {}),
          ...(flags.learn.length ? { learn: flags.learn } : {}),
        });
      } catch (error) {
        await store.close();
        throw error;
      }
      // The URL carries the token the page needs: printed as it is (the redactor would hide a `token=`).
      ctx.rawStdout(
        `deputy console: ${running.url}\n(the token in this URL is new at every start; Ctrl-C stops)\n`,
      );
      if (flags.open) openBrowser(running.url);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await running.close();
      await store.close();
    });
}

function openBrowser(url: string) {
  const [cmd, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    spawn(cmd, args, { stdio: "ignore", detached: true })
      .on("error", () => {})
      .unref();
  } catch {
    // Opening a browser is a convenience; the URL is printed either way.
  }
}
