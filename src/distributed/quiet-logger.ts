import { Logger } from "graphile-worker";

/** Graphile Worker's logger, keeping only warnings and errors (on stderr, one line each). */
export function quietLogger(write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  return new Logger(() => (level, message) => {
    if (message.includes("deputy: unit taken over")) return;
    if (level === "error" || level === "warning") write(`deputy worker: ${level}: ${message}\n`);
  });
}
