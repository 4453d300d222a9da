import { statSync } from "node:fs";
import { identityDigest } from "./cached-delegate.js";
import type { LocalDelegateOptions } from "./local-delegate-options.js";

export type { LocalDelegateOptions };

/**
 * A LocalDelegate's `cacheIdentity`: `undefined` when it samples without a fixed seed (temperature > 0, no
 * `seed`); otherwise a digest of the model file (its path, size and modification time: reading a GGUF of
 * gigabytes to hash it would cost more than the proposals it saves) and of every option that changes a proposal.
 * `poolSize`, `threads`, `jumpForward` and `sharePrefix` are left out: they change how fast, not what.
 */
export function localCacheIdentity(
  options: Pick<
    LocalDelegateOptions,
    | "model"
    | "temperature"
    | "seed"
    | "contextSize"
    | "maxOutputTokens"
    | "confidence"
    | "confidenceMethod"
    | "tokenProbability"
    | "declineThreshold"
    | "selfCheck"
  >,
): string | undefined {
  const temperature = options.temperature ?? 0;
  if (temperature > 0 && options.seed === undefined) return undefined;
  let file: { size: number; mtimeMs: number } | null = null;
  try {
    const stats = statSync(options.model);
    file = { size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    // A model URI (hf:…, https://…): its name stands for it.
  }
  return identityDigest([
    "local",
    options.model,
    file,
    temperature,
    temperature > 0 ? options.seed : null,
    options.contextSize ?? null,
    options.maxOutputTokens ?? null,
    options.confidence ?? null,
    options.confidenceMethod ?? null,
    options.tokenProbability ?? null,
    options.declineThreshold ?? null,
    options.selfCheck ?? null,
  ]);
}
