import { InvalidOptionError } from "../errors/invalid-option-error.js";

/** What a distilled model records about the pretrained encoder its heads were trained on. */
export interface EncoderInfo {
  /** The runtime: `"gguf"` (llama.cpp through node-llama-cpp's embedding API). */
  kind: "gguf";
  /** The model's own name (GGUF `general.name`, else the file name). */
  name: string;
  /** sha256 of the model file: a model trained on one encoder refuses every other. */
  sha256: string;
  /** Length of each embedding. */
  dimension: number;
  /** Where the file was when the model was trained: tried when no encoder is given at load time. */
  path?: string;
}

/** A pretrained sentence encoder run locally: one unit-length vector per text. */
export interface TextEncoder {
  readonly info: EncoderInfo;
  /** Embeds texts; the result is aligned with `texts`. Empty text gets a zero vector. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Frees the model. Idempotent. */
  close(): Promise<void>;
}

/** A parsed `--encoder` spec. */
export interface EncoderSpec {
  kind: "gguf";
  path: string;
}

/**
 * Parses an `--encoder` spec: `gguf=PATH` (a GGUF embedding model or small LLM run by node-llama-cpp, e.g. the
 * all-MiniLM-L6-v2 that `scripts/encoder-model.sh` fetches). Throws {@link InvalidOptionError} otherwise.
 */
export function parseEncoderSpec(spec: string, option = "--encoder"): EncoderSpec {
  const eq = spec.indexOf("=");
  const kind = eq > 0 ? spec.slice(0, eq) : "";
  const path = eq > 0 ? spec.slice(eq + 1) : "";
  if (kind !== "gguf" || path.length === 0)
    throw new InvalidOptionError(option, "gguf=PATH (a GGUF embedding model)", spec);
  return { kind, path };
}

/** Whether two encoder records name the same weights (name and path may differ; checksum and size may not). */
export function sameEncoder(a: EncoderInfo, b: EncoderInfo): boolean {
  return a.kind === b.kind && a.sha256 === b.sha256 && a.dimension === b.dimension;
}
