import { main } from "../src/cli/main.js";

/**
 * Runs the `deputy` CLI in-process, as a terminal (`isTTY`) or not, and returns its exit code and what it wrote:
 * `stdout`, `stderr` (the one-line errors and reports) and `raw` (progress lines a terminal redraws).
 */
export async function cli(args: string[], isTTY = false) {
  let stdout = "";
  let stderr = "";
  let raw = "";
  const code = await main(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    rawStderr: (t) => (raw += t),
    isTTY,
  });
  return { code, stdout, stderr, raw };
}
