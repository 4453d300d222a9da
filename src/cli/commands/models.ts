import { resolve } from "node:path";
import type { Command } from "commander";
import { MODEL_CATALOGUE } from "../../delegate/backends/model-catalogue.js";
import { listCachedModels, modelCacheDir, pullModel } from "../../delegate/backends/model-cache.js";
import { InvalidOptionError } from "../../errors/index.js";
import { writeTinyModel } from "../../testing/tiny-model.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

/**
 * `deputy models pull NAME|hf:OWNER/REPO/FILE` downloads a model into the cache through node-llama-cpp's
 * downloader; `deputy models list [--catalogue]` shows the cached models (or the catalogue);
 * `deputy models tiny --out FILE [--seed N] [--shape tiny|qwen2.5-0.5b]`: writes the seeded random-weight GGUF
 * model the tests use (a few hundred KB), or one of Qwen2.5-0.5B's shape for benchmarks.
 */
export function registerModels(program: Command, ctx: CliContext): void {
  const models = program.command("models").description("model files for tests and benchmarks");
  models
    .command("pull")
    .description(
      "download a catalogue model or hf:OWNER/REPO/FILE.gguf into the cache (node-llama-cpp's downloader)",
    )
    .argument("<model>", "a catalogue name (models list --catalogue) or hf:OWNER/REPO/FILE.gguf")
    .action(async (model: string) => {
      const path = await pullModel(model, {
        progress: ctx.isTTY,
        ...(process.env.HF_TOKEN ? { huggingFaceToken: process.env.HF_TOKEN } : {}),
      });
      ctx.stdout(`${path}\n`);
      ctx.setExitCode(EXIT.completed);
    });
  models
    .command("list")
    .description("list the cached models (or, with --catalogue, the recommended ones)")
    .option("--catalogue", "show the recommended small tool-calling models instead")
    .action((flags: { catalogue?: boolean }) => {
      if (flags.catalogue) {
        for (const m of MODEL_CATALOGUE) {
          // The last column says where the model can be fetched without a model hub, when it can.
          const pip = m.pip ? `\tpip: bash scripts/models.sh ${m.pip}` : "";
          ctx.stdout(`${m.name}\t${m.size}\t${m.license}\t${m.uri}${pip}\n`);
          // What `--delegate local=NAME` gets by default (measured in docs/quality.md), where deputy measured it.
          if (m.settings) ctx.stdout(`\tdefaults of local=${m.name}: ${m.settings}\n`);
        }
      } else {
        const cached = listCachedModels();
        if (cached.length === 0) ctx.stdout(`no models cached in ${modelCacheDir()}\n`);
        for (const m of cached) {
          // A file scripts/models.sh cached for a catalogued model: `local=NAME` finds it, with the defaults.
          const known = MODEL_CATALOGUE.find((c) => c.pip && m.name.startsWith(`${c.pip}/`));
          const as = known
            ? `\tlocal=${known.name}${known.settings ? ` (defaults: ${known.settings})` : ""}`
            : "";
          ctx.stdout(`${m.name}\t${(m.bytes / 1e6).toFixed(0)} MB\t${m.path}${as}\n`);
        }
      }
      ctx.setExitCode(EXIT.completed);
    });
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
