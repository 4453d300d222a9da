import { statSync } from "node:fs";
import { basename } from "node:path";
import type { LlamaEmbeddingContext, LlamaModel, Token } from "node-llama-cpp";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { acquireModel, releaseModel } from "../delegate/backends/node-llama-cpp-loader.js";
import { fileSha256 } from "./file-sha256.js";
import type { EncoderInfo, EncoderPooling, TextEncoder } from "./text-encoder.js";

/** Options of {@link GgufTextEncoder.open}. */
export interface GgufTextEncoderOptions {
  /**
   * Embedding contexts run side by side; a batch is spread over them. Default: 2 (one per core of a small
   * machine; measured faster than one context with two threads, see docs/distill.md).
   */
  contexts?: number;
  /** Threads per context. Default 1. */
  threads?: number;
  /** Longest input in tokens (longer input is cut there). Default: the model's training context, at most 512. */
  maxTokens?: number;
}

/** Texts whose vectors an encoder keeps (384 floats each for MiniLM: ~6 MB). */
const RECENT_TEXTS = 4096;

/** A text's vector as llama.cpp pooled it, and scaled to unit length. */
interface Vectors {
  raw: Float32Array;
  unit: Float32Array;
}

/**
 * A GGUF sentence encoder (an embedding model such as all-MiniLM-L6-v2, or a small LLM) run on the CPU by
 * node-llama-cpp's embedding API. Vectors are scaled to unit length. A batch is spread over a few embedding
 * contexts that run side by side.
 */
export class GgufTextEncoder implements TextEncoder {
  readonly info: EncoderInfo;
  readonly #path: string;
  readonly #model: LlamaModel;
  readonly #contexts: LlamaEmbeddingContext[];
  readonly #maxTokens: number;
  /** Vectors of recently embedded texts (a retried or resumed item, a training text seen again). */
  readonly #recent = new Map<string, Vectors>();
  #closed = false;

  private constructor(
    info: EncoderInfo,
    path: string,
    model: LlamaModel,
    contexts: LlamaEmbeddingContext[],
    maxTokens: number,
  ) {
    this.info = info;
    this.#path = path;
    this.#model = model;
    this.#contexts = contexts;
    this.#maxTokens = maxTokens;
  }

  /** Loads the model, checksums the file and opens the embedding contexts. */
  static async open(path: string, options: GgufTextEncoderOptions = {}): Promise<GgufTextEncoder> {
    const contexts = whole("contexts", options.contexts) ?? 2;
    const threads = whole("threads", options.threads) ?? 1;
    try {
      statSync(path);
    } catch (cause) {
      throw new InvalidOptionError("encoder", `an existing GGUF file (${(cause as Error).message})`, path);
    }
    const [sha256, model] = await Promise.all([fileSha256(path), acquireModel(path, false)]);
    try {
      const trained = model.trainContextSize || 512;
      const maxTokens = Math.min(whole("maxTokens", options.maxTokens) ?? 512, trained);
      const opened: LlamaEmbeddingContext[] = [];
      for (let i = 0; i < contexts; i++)
        opened.push(
          await model.createEmbeddingContext({ contextSize: maxTokens, batchSize: maxTokens, threads }),
        );
      const name = model.fileInfo.metadata?.general?.name ?? basename(path);
      const pooling = poolingOf(model, path);
      return new GgufTextEncoder(
        { kind: "gguf", name, sha256, dimension: model.embeddingVectorSize, pooling, path },
        path,
        model,
        opened,
        maxTokens,
      );
    } catch (cause) {
      await releaseModel(path, false);
      throw cause;
    }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return (await this.#vectors(texts)).map((v) => v.unit);
  }

  /**
   * The vectors llama.cpp pools, not scaled to unit length: what a tuned reader's label head reads (its logits are
   * the head's weights times this vector, as the trainer computed them).
   */
  async embedRaw(texts: readonly string[]): Promise<Float32Array[]> {
    return (await this.#vectors(texts)).map((v) => v.raw);
  }

  /** Each text's vector as llama.cpp pooled it and scaled to unit length, from the recent ones or embedded now. */
  async #vectors(texts: readonly string[]): Promise<Vectors[]> {
    if (this.#closed)
      throw new DelegateBackendError("encoder", "the encoder is closed", { code: "DELEGATE_CLOSED" });
    // Known vectors are taken now: a call running beside this one may forget them meanwhile.
    const fresh = new Map<string, Vectors>();
    const unknown = new Set<string>();
    for (const t of texts) {
      const known = this.#recent.get(t);
      if (known) fresh.set(t, known);
      else unknown.add(t);
    }
    const missing = [...unknown];
    let next = 0;
    const worker = async (context: LlamaEmbeddingContext) => {
      while (next < missing.length) {
        const text = missing[next++]!;
        const raw = await this.#embedOne(context, text);
        fresh.set(text, { raw, unit: unit(raw) });
      }
    };
    await Promise.all(this.#contexts.map(worker));
    const out = texts.map((t) => fresh.get(t)!);
    // Most recently used last: the oldest is forgotten first.
    texts.forEach((t, i) => {
      this.#recent.delete(t);
      this.#recent.set(t, out[i]!);
    });
    while (this.#recent.size > RECENT_TEXTS) this.#recent.delete(this.#recent.keys().next().value!);
    return out;
  }

  async #embedOne(context: LlamaEmbeddingContext, text: string): Promise<Float32Array> {
    const dimension = this.info.dimension;
    // Room for the begin and end tokens the context adds, and one more: node-llama-cpp refuses an input whose
    // length reaches the context size (`>=`), so 510 tokens plus two threw on a 512-token context.
    const tokens: Token[] = this.#model.tokenize(text).slice(0, this.#maxTokens - 3);
    if (tokens.length === 0) return new Float32Array(dimension);
    const { vector } = await context.getEmbeddingFor(tokens);
    return Float32Array.from(vector);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of this.#contexts) await c.dispose();
    await releaseModel(this.#path, false);
  }
}

/** A copy of a vector scaled to unit length (a zero vector stays zero). */
export function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  const out = Float32Array.from(v);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/**
 * How llama.cpp pools this model's token states, from the GGUF's `ARCH.pooling_type` (llama.cpp's enum: 0 none,
 * 1 mean, 2 cls, 3 last, 4 rank). A file that names none — a decoder-only model such as Qwen2.5-Coder — gets no
 * pooling, and node-llama-cpp then returns the last token's hidden state (after the final norm): `"last"`. A
 * ranking model (a score, not a vector) is refused.
 */
function poolingOf(model: LlamaModel, path: string): EncoderPooling {
  const metadata = model.fileInfo.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
  const architecture = model.fileInfo.metadata?.general?.architecture;
  const raw = architecture ? metadata[architecture]?.pooling_type : undefined;
  if (raw === undefined || raw === 0 || raw === 3) return "last";
  if (raw === 1) return "mean";
  if (raw === 2) return "cls";
  throw new InvalidOptionError(
    "encoder",
    "an embedding model or a decoder model (not a ranking model)",
    path,
  );
}

function whole(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidOptionError(option, "a positive integer", value);
  return value;
}
