import type { CliContext } from "./cli-context.js";

/** Seconds in-flight work gets after a first SIGINT/SIGTERM before its signal is aborted. */
export const DEFAULT_GRACE_SECONDS = 10;

/** The signals a run is given while the CLI drives it. */
export interface StopSignals {
  /** Fires at the first SIGINT/SIGTERM: take no new work. */
  stop: AbortSignal;
  /** Fires when the grace period is over: in-flight work is cut short. */
  signal: AbortSignal;
  /** Which signal stopped the run, if any. */
  readonly received: NodeJS.Signals | undefined;
}

/**
 * Runs `fn` with graceful-stop signals wired to SIGINT and SIGTERM. The first signal stops new work and starts
 * the grace period (after which in-flight work is aborted); the run then commits and ends `interrupted`. A second
 * signal exits at once (code 130): every commit so far is durable, only in-flight work is lost.
 */
export async function withGracefulStop<T>(
  ctx: CliContext,
  graceSeconds: number,
  fn: (signals: StopSignals) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const abort = new AbortController();
  let received: NodeJS.Signals | undefined;
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    if (received) {
      ctx.stderr(`deputy: ${name} again: exiting now.\n`);
      process.exit(130);
    }
    received = name;
    ctx.stderr(
      `deputy: ${name}: taking no new work; work in flight has ${graceSeconds}s to finish (${name} again exits at once).\n`,
    );
    stop.abort(new Error(`stopped by ${name}`));
    grace = setTimeout(
      () => abort.abort(new Error(`stopped by ${name}; grace period over`)),
      graceSeconds * 1000,
    );
    grace.unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await fn({
      stop: stop.signal,
      signal: abort.signal,
      get received() {
        return received;
      },
    });
  } finally {
    clearTimeout(grace);
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}
