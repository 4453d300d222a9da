import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { DeputyError } from "../errors/deputy-error.js";
import type { CliContext, RegisterCommand } from "./cli-context.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { redactText } from "../traces/redact.js";
import { neutralizeTerminal } from "../traces/terminal-text.js";
import { registerResume } from "./commands/resume.js";
import { registerRun } from "./commands/run.js";
import { registerRuns } from "./commands/runs.js";
import { registerValidate } from "./commands/validate.js";
import { registerTraces } from "./commands/traces.js";
import { registerResolve } from "./commands/resolve.js";
import { registerDistill } from "./commands/distill.js";
import { registerModels } from "./commands/models.js";
import { registerEval } from "./commands/eval.js";
import { registerWorker } from "./commands/worker.js";
import { registerUi } from "./commands/ui.js";
import { registerCalibrate } from "./commands/calibrate.js";
import { registerPlan } from "./commands/plan.js";
import { registerMcpServe } from "./commands/mcp-serve.js";
import { registerRepair } from "./commands/repair.js";
import { registerCache } from "./commands/cache.js";

// Each command lives in its own file under commands/ and is listed here once.
const commands: RegisterCommand[] = [
  registerRun,
  registerValidate,
  registerResume,
  registerRuns,
  registerTraces,
  registerResolve,
  registerDistill,
  registerModels,
  registerEval,
  registerWorker,
  registerUi,
  registerCalibrate,
  registerPlan,
  registerMcpServe,
  registerRepair,
  registerCache,
];

/** Runs the `deputy` command line; resolves to the process exit code. */
export async function main(argv: string[], io: Partial<CliContext> = {}): Promise<number> {
  let exitCode = 0;
  const stdout = io.stdout ?? ((t: string) => process.stdout.write(t));
  const stderr = io.stderr ?? ((t: string) => process.stderr.write(t));
  // One gate for everything the CLI prints: no secret, and nothing a model wrote can drive the terminal.
  const safe = (text: string) => neutralizeTerminal(redactText(text));
  const ctx: CliContext = {
    stdout: (t) => stdout(safe(t)),
    stderr: (t) => stderr(safe(t)),
    rawStdout: io.rawStdout ?? stdout,
    rawStderr: io.rawStderr ?? stderr,
    isTTY: io.isTTY ?? Boolean(process.stderr.isTTY),
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  const program = new Command("deputy")
    .description("Execution plans with tool-call delegates, and bounded agent-to-agent delegation.")
    .version(packageVersion(), "-V, --version", "print the version of deputy")
    .option("--debug", "show stack traces of errors")
    .exitOverride()
    .configureOutput({
      writeOut: ctx.stdout,
      writeErr: ctx.stderr,
      // Commander puts its "(Did you mean run?)" on a line of its own: every error is one line.
      outputError: (text, write) => write(`${text.trim().replace(/\s*[\r\n]+\s*/g, " ")}\n`),
    });
  for (const register of commands) register(program, ctx);
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : EXIT.invalid;
    }
    const debug = argv.includes("--debug");
    if (debug && error instanceof Error) ctx.stderr(`${error.stack}\n`);
    else ctx.stderr(`deputy: ${oneLine(error)}\n`);
    return exitCodeOf(error);
  }
}

/** An error as one line: a message may quote input across lines (JSON.parse quotes the text it failed on). */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s*[\r\n]+\s*/g, " ").trim();
  return DeputyError.isInstance(error) ? `${line} [${error.code}]` : line;
}

/** deputy's version, from the package.json beside `dist/` (and `src/`). */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}
