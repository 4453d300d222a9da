/**
 * The stdio servers this process started, killed when it exits without closing them (an uncaught error, a
 * `process.exit` such as the CLI's second SIGINT). A normal close stops each server itself (stdin closed,
 * then SIGTERM, then SIGKILL); this is the last resort, so it is SIGKILL: an `exit` handler cannot wait.
 */
const children = new Set<number>();
let hooked = false;

/** Kills `pid` if this process exits while it is still listed. */
export function reapOnExit(pid: number): void {
  children.add(pid);
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const child of children) {
      try {
        process.kill(child, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

/** `pid` was stopped (or exited) on its own: nothing to kill at exit. */
export function forgetChild(pid: number): void {
  children.delete(pid);
}
