import { createInterface } from "node:readline/promises";
import type { CliContext } from "./cli-context.js";

/**
 * Asks a person a yes/no question on the terminal: "y" or "yes" is yes; anything else, `--json`, or no terminal
 * (stdout or stdin not a TTY) is no — a script never approves by accident. Shared by `deputy repair` (apply a
 * delta) and `deputy plan --run` (run a plan whose tools have side effects).
 */
export async function confirm(
  ctx: CliContext,
  question: string,
  json: boolean | undefined,
): Promise<boolean> {
  if (json || !ctx.isTTY || !process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
