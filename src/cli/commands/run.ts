import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { DEFAULT_GRACE_SECONDS, withGracefulStop } from "../graceful-stop.js";
import { createProgress } from "../progress.js";
import { requireToolsModule } from "../require-tools-module.js";
import { eventLine, printRunResult, renderIssues } from "../render-manifest.js";
import { leaseFrom, storeHint } from "../run-setup.js";
import { JobDispatcher } from "../../distributed/job-dispatcher.js";
import type { PostgresRunStore } from "../../store/postgres-run-store.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { validatePlan } from "../../plan/validate-plan.js";
import {
  namedPlanArgs,
  resolvePlanToRun,
  withNamedPlanFlags,
  type NamedPlanFlags,
} from "./run-named-plan.js";
import {
  noticeWithoutWorkers,
  openStore,
  requirePostgres,
  setupRun,
  type RunFlags,
  readPlanFile,
  createHost,
  startPlan,
} from "../../compose/index.js";

/** Options every command that loads tools and delegates shares. */
export function withRunFlags(cmd: Command): Command {
  return cmd
    .option(
      "--tools <source>",
      'tools: an ES module (.js, .mjs or .ts) exporting them (and agents), or an MCP server, "mcp:stdio:COMMAND ARGS…" or mcp+http(s)://HOST/PATH (mcp+trusted… to trust its read-only hints); repeat for more',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--delegate <spec>",
      "delegate backend, KIND=VALUE (e.g. scripted=FILE, local=MODEL.gguf, llama-server=URL); repeat to build a chain",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--mcp-header <header>",
      "'Name: value' sent with every request to the mcp+http(s) servers of --tools (e.g. 'Authorization: Bearer …'); never recorded; repeat for more",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--mcp-headers-file <file>", "more such headers from a file, one 'Name: value' a line")
    .option("--traces <file>", "append delegate traces (JSONL) to this file")
    .option("--allow-delegate-side-effects", "host key of the side-effect double key");
}

/** The `--grace` option of commands that run work. */
export function withGraceFlag(cmd: Command): Command {
  return cmd.option(
    "--grace <seconds>",
    `after SIGINT/SIGTERM, how long work in flight may finish before it is aborted (default ${DEFAULT_GRACE_SECONDS})`,
  );
}

/** Parses `--grace`: seconds ≥ 0. */
export function graceSeconds(text: string | undefined): number {
  if (text === undefined) return DEFAULT_GRACE_SECONDS;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > 86_400)
    throw new InvalidOptionError("--grace", "a number of seconds from 0 to 86400", text);
  return n;
}

export function registerRun(program: Command, ctx: CliContext): void {
  withNamedPlanFlags(
    withGraceFlag(
      withRunFlags(
        program
          .command("run <plan>")
          .description("validate and run a plan (a file, or with --plans a plan's name)"),
      ),
    ),
  )
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--no-store", "keep the run in memory only (no checkpoints on disk, no resume)")
    .option("--json", "print the manifest as JSON on stdout")
    .option(
      "--events",
      "stream the run's events as JSON lines on stdout as they happen (with --json the manifest is the last line)",
    )
    .option(
      "--lease-ttl <seconds>",
      "lease length: if this process dies, the run is resumable this long after its last heartbeat (default 10)",
    )
    .option("--distributed", "run the units as jobs on `deputy worker` processes (needs a postgres:// store)")
    .action(
      async (
        planPath: string,
        flags: RunFlags &
          NamedPlanFlags & {
            json?: boolean;
            events?: boolean;
            grace?: string;
            leaseTtl?: string;
            distributed?: boolean;
          },
      ) => {
        const grace = graceSeconds(flags.grace);
        const lease = leaseFrom(flags);
        // A plan's name under --plans, else a file; its declared inputs checked before anything is opened.
        const named = resolvePlanToRun(planPath, flags, readPlanFile);
        if (named.problems.length) {
          ctx.stderr(named.problems.map((p) => `deputy: ${p}\n`).join(""));
          ctx.setExitCode(EXIT.invalid);
          return;
        }
        const input = named.plan;
        const { options, close } = await setupRun(flags);
        try {
          const { host, nodeTypes } = createHost(options);
          // Validated once: the report is handed to the run, which does not validate again.
          const report = validatePlan(input, { host, nodeTypes });
          requireToolsModule(report.issues, flags.tools);
          if (!report.ok) {
            (flags.json ? ctx.stdout : ctx.stderr)(
              flags.json
                ? JSON.stringify({ status: "invalid", issues: report.issues }, null, 2) + "\n"
                : renderIssues(report.issues),
            );
            ctx.setExitCode(EXIT.invalid);
            return;
          }
          if (report.issues.length && !flags.json) ctx.stderr(renderIssues(report.issues));
          const store = flags.distributed
            ? requirePostgres(flags.store, "--distributed")
            : openStore(flags.store);
          const distributed = flags.distributed ? new JobDispatcher(store as PostgresRunStore) : undefined;
          const progress =
            ctx.isTTY && !flags.json && !flags.events ? createProgress(ctx.rawStderr) : undefined;
          if (distributed) await noticeWithoutWorkers(distributed, ctx.stderr);
          try {
            const manifest = await withGracefulStop(ctx, grace, async (stops) => {
              const run = startPlan(input, {
                ...options,
                store,
                lease,
                validated: report,
                stop: stops.stop,
                signal: stops.signal,
                ...(distributed ? { distributed } : {}),
                ...namedPlanArgs(named),
                meta: { ...options.meta, plan: resolve(named.path) },
                ...(progress ? { onEvent: progress.onEvent } : {}),
              });
              if (flags.events) for await (const event of run.events()) ctx.stdout(eventLine(event));
              return run.manifest;
            });
            progress?.done();
            printRunResult(ctx, manifest, flags.json, storeHint(flags.store), flags.tools, flags.events);
          } finally {
            await distributed?.close();
            await store.close();
          }
        } finally {
          await close();
        }
      },
    );
}
