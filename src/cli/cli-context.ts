import type { Command } from "commander";

/** What every command gets: where to write, and the exit code to set. */
export interface CliContext {
  /** Everything printed goes through deputy's redactor, and control characters are neutralised. */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * stdout as it is, for text deputy itself made that must reach the user whole: the console's URL with its
   * per-start token (which the redactor would otherwise hide). Never for model or tool output.
   */
  rawStdout: (text: string) => void;
  /** stderr as it is, for the progress line's own cursor control (it prints only counts and node ids). */
  rawStderr: (text: string) => void;
  /** True when stderr is a terminal (live progress is shown only then). */
  isTTY: boolean;
  setExitCode(code: number): void;
}

/** A command module registers its subcommand(s) on the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
