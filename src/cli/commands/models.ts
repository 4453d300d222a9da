import { resolve } from "node:path";
import type { Command } from "commander";
import { InvalidOptionError } from "../../errors/index.js";
import { writeTinyModel } from "../../testing/tiny-model.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

/**
 * `deputy models tiny --out FILE [--seed N] [--shape tiny|qwen2.5-0.5b]`: writes the seeded random-weight GGUF
 * model the tests use (a few hundred KB), or one of Qwen2.5-0.5B's shape for benchmarks.
 */
export function registerModels(program: Command, ctx: CliContext): void {
  const models = program.command("models").description("model files for tests and benchmarks");
  models
    .command("tiny")
    .description("write a deterministic random-weight GGUF model (llama architecture, byte-level vocabulary)")
    .requiredOption("--out <file>", "where to write the .gguf file")
    .option("--seed <n>", "seed of the weights", "1")
    .option("--shape <shape>", "tiny (default, ~430 KB) or qwen2.5-0.5b (~530 MB)", "tiny")
    .action((flags: { out: string; seed: string; shape: string }) => {
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed)) throw new InvalidOptionError("--seed", "an integer", flags.seed);
      if (flags.shape !== "tiny" && flags.shape !== "qwen2.5-0.5b") {
        throw new InvalidOptionError("--shape", '"tiny" or "qwen2.5-0.5b"', flags.shape);
      }
      const info = writeTinyModel(resolve(flags.out), { seed, shape: flags.shape });
      ctx.stdout(`${info.path}: ${info.bytes} bytes, vocabulary ${info.vocabSize}, seed ${seed}\n`);
      ctx.setExitCode(EXIT.completed);
    });
}
