/**
 * The stdio servers this process started, killed when it ends without closing them: an uncaught error or a
 * `process.exit` (the CLI's second SIGINT) runs the `exit` hook; a SIGINT, SIGTERM or SIGHUP that nothing else
 * handles (one that arrives while the CLI is still setting up, before its graceful stop listens) would end the
 * process without it, so a listener of our own kills the servers and then lets the signal do what it would
 * have done. A normal close stops each server itself (stdin closed, then SIGTERM, then SIGKILL); this is the
 * last resort, so it is SIGKILL: an `exit` handler cannot wait.
 */
const children = new Set<number>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let hooked = false;

function killAll(): void {
  for (const child of children) {
    try {
      process.kill(child, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  children.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else handles it (the CLI's graceful stop): the run ends and closes its servers itself.
  if (process.listenerCount(signal) > 1) return;
  killAll();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

/** Kills `pid` if this process ends while it is still listed. */
export function reapOnExit(pid: number): void {
  children.add(pid);
  if (hooked) return;
  hooked = true;
  process.once("exit", killAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** `pid` was stopped (or exited) on its own: nothing to kill at exit. */
export function forgetChild(pid: number): void {
  children.delete(pid);
}
