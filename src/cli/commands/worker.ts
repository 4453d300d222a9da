import type { Command } from "commander";
import { startWorker } from "../../distributed/start-worker.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import type { CliContext } from "../cli-context.js";
import { leaseFrom } from "../run-setup.js";
import { withRunFlags } from "./run.js";
import { requirePostgres, setupRun, type RunFlags } from "../../compose/index.js";

interface WorkerFlags extends RunFlags {
  concurrency: string;
  leaseTtl?: string;
  heartbeatMs: string;
  deadAfterMs: string;
  takeOver: boolean;
  quiet?: boolean;
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 100_000)
    throw new InvalidOptionError(flag, "a positive integer", text);
  return n;
}

export function registerWorker(program: Command, ctx: CliContext): void {
  withRunFlags(
    program
      .command("worker")
      .description("run the units of distributed runs (deputy run --distributed) from a PostgreSQL store"),
  )
    .option("--store <url>", "the shared run store: a postgres:// URL (default: $DEPUTY_STORE)")
    .option("--concurrency <n>", "units this worker runs at once", "8")
    .option("--lease-ttl <seconds>", "lease length for runs this worker takes over (default 10)")
    .option("--heartbeat-ms <ms>", "how often this worker records that it is alive", "250")
    .option("--dead-after-ms <ms>", "a worker silent this long is dead and its jobs are unlocked", "1000")
    .option("--no-take-over", "never coordinate runs whose coordinator died")
    .option("--quiet", "print nothing but errors")
    .action(async (flags: WorkerFlags) => {
      const concurrency = positiveInt("--concurrency", flags.concurrency);
      const heartbeatMs = positiveInt("--heartbeat-ms", flags.heartbeatMs);
      const deadAfterMs = positiveInt("--dead-after-ms", flags.deadAfterMs);
      const lease = leaseFrom(flags);
      // The run store's own connections: plans, and the runs this worker takes over. Units use the worker's
      // queue connections (startWorker opens 2 × concurrency + 4 of them).
      const store = requirePostgres(flags.store, "deputy worker", { maxConnections: 6 });
      const log = flags.quiet ? undefined : (line: string) => ctx.stderr(`deputy worker: ${line}\n`);
      const { options, close } = await setupRun(flags);
      try {
        const worker = await startWorker({
          store,
          run: options,
          concurrency,
          heartbeatMs,
          deadAfterMs,
          takeOver: flags.takeOver,
          ...(lease.ttlMs ? { leaseTtlMs: lease.ttlMs } : {}),
          ...(log ? { log } : {}),
        });
        // SIGTERM/SIGINT: finish running units (or hand them back after 5 s) and exit; a second signal exits now.
        let signalled = false;
        const onSignal = (signal: NodeJS.Signals) => {
          if (signalled) process.exit(130);
          signalled = true;
          log?.(`${signal}: finishing running units, then stopping (again to exit at once)`);
          void worker.stop();
        };
        process.on("SIGTERM", onSignal);
        process.on("SIGINT", onSignal);
        try {
          await worker.done;
        } finally {
          process.off("SIGTERM", onSignal);
          process.off("SIGINT", onSignal);
        }
        log?.(`stopped`);
      } finally {
        await close();
        await store.close();
      }
    });
}
