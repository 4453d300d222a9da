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
    .option("--debug", "show stack traces of errors")
    .exitOverride()
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr });
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

function oneLine(error: unknown): string {
  if (DeputyError.isInstance(error)) return `${error.message} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}
