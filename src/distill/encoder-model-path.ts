import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ModelFetchError } from "../errors/model-fetch-error.js";

/** @internal Where `scripts/encoder-model.sh` caches all-MiniLM-L6-v2 (q8_0 GGUF). */
export function defaultEncoderModelPath(): string {
  const root = process.env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy");
  return join(root, "models", "all-minilm-l6-v2", "0.1.2", "all-minilm-l6-v2.q8_0.gguf");
}

/**
 * @internal The encoder model the tests and benchmarks use: `$DEPUTY_ENCODER_MODEL`, else the cached file.
 * Throws with the command that fetches it when it is not there.
 */
export function encoderModelForTests(): string {
  const path = process.env.DEPUTY_ENCODER_MODEL ?? defaultEncoderModelPath();
  if (!existsSync(path))
    throw new ModelFetchError(
      "all-minilm-l6-v2",
      `encoder model not found at ${path}: run \`bash scripts/encoder-model.sh\` (npm test does) or set DEPUTY_ENCODER_MODEL`,
    );
  return path;
}
