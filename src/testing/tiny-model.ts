import { statSync } from "node:fs";
import { InvalidOptionError } from "../errors/index.js";
import { type GgufTensor, type GgufTensorType, type GgufValue, writeGguf } from "./gguf-writer.js";
import { CHATML_TOOLS_TEMPLATE } from "./chat-template.js";

/** The shape of a random-weight llama-architecture model. */
export interface ModelShape {
  /** Hidden size. */
  embedding: number;
  layers: number;
  heads: number;
  kvHeads: number;
  feedForward: number;
  contextLength: number;
  ropeTheta: number;
  /** Vocabulary size; byte-level tokens first, the rest padded with unused tokens. At least the base tokens. */
  vocabSize?: number;
  /** Add every printable-ASCII pair as a token, so text tokenises to about half as many tokens. */
  bigrams: boolean;
  /** Element type of the weight matrices (norms are always f32). */
  tensorType: GgufTensorType;
  /** Standard deviation of the output projection, relative to 1/√embedding: higher makes choices peakier. */
  outputScale: number;
  /**
   * Extra logit (about) for the tokens that close a JSON value — `"` `,` `}` `]` — so that grammar-constrained
   * output ends in tens of tokens instead of wandering through long random strings. 0 turns it off. Only used with
   * an untied output (`tiedEmbeddings: false`).
   */
  closingBias: number;
  /** Reuse the token embeddings as the output projection (no `output.weight`); steering needs it untied. */
  tiedEmbeddings: boolean;
}

/** The default: a few hundred KB, loads and decodes in milliseconds. */
export const TINY_SHAPE: ModelShape = {
  embedding: 64,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  feedForward: 128,
  contextLength: 32768,
  ropeTheta: 10000,
  bigrams: false,
  tensorType: "f32",
  outputScale: 4,
  closingBias: 6,
  tiedEmbeddings: false,
};

/**
 * Qwen2.5-0.5B's real matrix shapes (hidden 896, 24 layers, 14 heads / 2 KV heads, FFN 4864, vocabulary 151 936)
 * with random q8_0 weights (~680 MB): for benchmarks that need a realistic cost per token. Unlike the real model
 * the output projection is untied (same compute per token, +145 MB) so the output can be steered like the tiny
 * model's; the byte + printable-pair vocabulary makes text about twice as many tokens as Qwen's tokenizer would.
 */
export const QWEN25_05B_SHAPE: ModelShape = {
  embedding: 896,
  layers: 24,
  heads: 14,
  kvHeads: 2,
  feedForward: 4864,
  contextLength: 32768,
  ropeTheta: 1_000_000,
  vocabSize: 151_936,
  bigrams: true,
  tensorType: "q8_0",
  outputScale: 4,
  closingBias: 6,
  tiedEmbeddings: false,
};

/** Options of {@link writeTinyModel}. */
export interface TinyModelOptions extends Partial<ModelShape> {
  /** Seed of the weights; the same seed and shape always write the same bytes. Default 1. */
  seed?: number;
  /** Start from a named shape, then apply the other fields. Default `"tiny"`. */
  shape?: "tiny" | "qwen2.5-0.5b";
}

/** What {@link writeTinyModel} wrote. */
export interface TinyModelInfo {
  path: string;
  bytes: number;
  vocabSize: number;
  shape: ModelShape;
}

/** Special tokens, in id order; byte tokens follow. */
const SPECIAL = [
  ["<unk>", 2],
  ["<s>", 3],
  ["</s>", 3],
  ["<|im_start|>", 3],
  ["<|im_end|>", 3],
  ["<tool_call>", 4],
  ["</tool_call>", 4],
] as const;
const BOS_ID = 1;
const EOS_ID = 4; // <|im_end|>: what a ChatML model stops on
const TOKEN_TYPE = { normal: 1, unused: 5, byte: 6 } as const;

/**
 * Writes a deterministic, seeded, random-weight GGUF v3 model of the llama architecture with a byte-level
 * SentencePiece ("llama") vocabulary: `<unk>`, `<s>`, `</s>`, `<|im_start|>`, `<|im_end|>` (end of turn),
 * `<tool_call>`, `</tool_call>`, the 256 byte tokens `<0x00>`…`<0xFF>` and `▁` (space), plus an optional
 * printable-ASCII pair per token. Its chat template is ChatML with Qwen2.5-style `<tool_call>` tool calls, which
 * llama-server's `--jinja` recognises. A few weights are steered (see `steerOutput`) so that constrained values
 * close soon and a chat turn under a tool-call grammar opens one call and then ends.
 *
 * Its outputs are random, but under a grammar well-formed: the test stand-in for a real model.
 *
 * @example
 * writeTinyModel("/tmp/tiny.gguf", { seed: 7 }); // ~430 KB
 */
export function writeTinyModel(path: string, options: TinyModelOptions = {}): TinyModelInfo {
  const { seed = 1, shape: shapeName = "tiny", ...overrides } = options;
  if (!Number.isInteger(seed)) throw new InvalidOptionError("seed", "an integer", seed);
  const base = shapeName === "qwen2.5-0.5b" ? QWEN25_05B_SHAPE : TINY_SHAPE;
  const shape: ModelShape = { ...base, ...overrides };
  if (shape.embedding % shape.heads !== 0 || shape.heads % shape.kvHeads !== 0) {
    throw new InvalidOptionError("heads", "a divisor of embedding and a multiple of kvHeads", shape.heads);
  }
  const vocab = buildVocabulary(shape);
  const headDim = shape.embedding / shape.heads;
  const kvDim = headDim * shape.kvHeads;
  const e = shape.embedding;

  const metadata: Record<string, GgufValue> = {
    "general.architecture": { type: "string", value: "llama" },
    "general.name": { type: "string", value: `deputy-random-${shapeName}-seed${seed}` },
    "general.alignment": { type: "u32", value: 32 },
    "llama.context_length": { type: "u32", value: shape.contextLength },
    "llama.embedding_length": { type: "u32", value: e },
    "llama.block_count": { type: "u32", value: shape.layers },
    "llama.feed_forward_length": { type: "u32", value: shape.feedForward },
    "llama.attention.head_count": { type: "u32", value: shape.heads },
    "llama.attention.head_count_kv": { type: "u32", value: shape.kvHeads },
    "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-6 },
    "llama.rope.dimension_count": { type: "u32", value: headDim },
    "llama.rope.freq_base": { type: "f32", value: shape.ropeTheta },
    "llama.vocab_size": { type: "u32", value: vocab.tokens.length },
    "tokenizer.ggml.model": { type: "string", value: "llama" },
    "tokenizer.ggml.tokens": { type: "string[]", value: vocab.tokens },
    "tokenizer.ggml.scores": { type: "f32[]", value: vocab.scores },
    "tokenizer.ggml.token_type": { type: "i32[]", value: vocab.types },
    "tokenizer.ggml.bos_token_id": { type: "u32", value: BOS_ID },
    "tokenizer.ggml.eos_token_id": { type: "u32", value: EOS_ID },
    "tokenizer.ggml.unknown_token_id": { type: "u32", value: 0 },
    "tokenizer.ggml.add_bos_token": { type: "bool", value: true },
    "tokenizer.ggml.add_eos_token": { type: "bool", value: false },
    "tokenizer.ggml.add_space_prefix": { type: "bool", value: false },
    "tokenizer.chat_template": { type: "string", value: CHATML_TOOLS_TEMPLATE },
  };

  const n = vocab.tokens.length;
  const t = shape.tensorType;
  const matrix = (name: string, cols: number, rows: number, std: number): GgufTensor => ({
    name,
    dims: [cols, rows],
    type: t,
    fill: () => randomChunks(seed, name, cols * rows, std),
  });
  const ones = (name: string): GgufTensor => ({
    name,
    dims: [e],
    type: "f32",
    fill: () => [new Float32Array(e).fill(1)],
  });
  const biased = !shape.tiedEmbeddings && shape.closingBias > 0;
  const embeddings = matrix("token_embd.weight", e, n, 1);
  const tensors: GgufTensor[] = [
    biased ? steerEmbeddings(embeddings, e, vocab.tokens) : embeddings,
    ones("output_norm.weight"),
  ];
  if (!shape.tiedEmbeddings) {
    const output = matrix("output.weight", e, n, shape.outputScale / Math.sqrt(e));
    tensors.push(biased ? steerOutput(output, e, vocab.tokens, shape.closingBias) : output);
  }
  for (let i = 0; i < shape.layers; i++) {
    const inE = 1 / Math.sqrt(e);
    tensors.push(
      ones(`blk.${i}.attn_norm.weight`),
      matrix(`blk.${i}.attn_q.weight`, e, e, inE),
      matrix(`blk.${i}.attn_k.weight`, e, kvDim, inE),
      matrix(`blk.${i}.attn_v.weight`, e, kvDim, inE),
      matrix(`blk.${i}.attn_output.weight`, e, e, inE),
      ones(`blk.${i}.ffn_norm.weight`),
      matrix(`blk.${i}.ffn_gate.weight`, e, shape.feedForward, inE),
      matrix(`blk.${i}.ffn_up.weight`, e, shape.feedForward, inE),
      matrix(`blk.${i}.ffn_down.weight`, shape.feedForward, e, 1 / Math.sqrt(shape.feedForward)),
    );
  }
  writeGguf(path, metadata, tensors);
  return { path, bytes: statSync(path).size, vocabSize: n, shape };
}

function buildVocabulary(shape: ModelShape): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens: string[] = [];
  const types: number[] = [];
  const scores: number[] = [];
  for (const [text, type] of SPECIAL) {
    tokens.push(text);
    types.push(type);
    scores.push(0);
  }
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(TOKEN_TYPE.byte);
    scores.push(0);
  }
  // SentencePiece writes a space as "▁"; without this token a space would become the three bytes of "▁".
  tokens.push("▁");
  types.push(TOKEN_TYPE.normal);
  scores.push(0);
  if (shape.bigrams) {
    for (let a = 0x20; a < 0x7f; a++) {
      for (let b = 0x20; b < 0x7f; b++) {
        tokens.push((String.fromCharCode(a) + String.fromCharCode(b)).replace(/ /g, "▁"));
        types.push(TOKEN_TYPE.normal);
        scores.push(-1);
      }
    }
  }
  const target = shape.vocabSize ?? tokens.length;
  if (target < tokens.length) throw new InvalidOptionError("vocabSize", `at least ${tokens.length}`, target);
  for (let i = tokens.length; i < target; i++) {
    tokens.push(`<unused${i}>`);
    types.push(TOKEN_TYPE.unused);
    scores.push(-1000);
  }
  return { tokens, scores, types };
}

const CLOSING = ['"', ",", "}", "]"].map((c) => `<0x${c.charCodeAt(0).toString(16).toUpperCase()}>`);

/*
 * Steering a random model, so that grammar-constrained output stays short and a chat turn under llama-server's
 * tool-call grammar makes exactly one call. Three embedding dimensions carry signals through the residual stream
 * (the random layers add noise of about ±2 per dimension; the final RMS norm scales by about 1/1.5):
 *   0: 4 in every token — a constant, so output weights on it act as a logit bias: `"` `,` `}` `]` get
 *      `closingBias` (values close soon);
 *   1: 8 in "\n" only — `<tool_call>` follows a newline (the assistant turn opens with one; JSON strings never
 *      contain one), so a free chat turn starts with a tool call;
 *   2: 8 in `</tool_call>` only — `<|im_end|>` follows it, so the turn ends after one call.
 */
const CARRIER = 4;
const SIGNAL = 8;

function steerEmbeddings(tensor: GgufTensor, e: number, tokens: readonly string[]): GgufTensor {
  const newline = tokens.indexOf("<0x0A>");
  const closeCall = tokens.indexOf("</tool_call>");
  return withColumns(tensor, e, (row, col) =>
    col === 0
      ? CARRIER
      : col === 1
        ? row === newline
          ? SIGNAL
          : 0
        : col === 2
          ? row === closeCall
            ? SIGNAL
            : 0
          : undefined,
  );
}

function steerOutput(
  tensor: GgufTensor,
  e: number,
  tokens: readonly string[],
  closingBias: number,
): GgufTensor {
  // Byte tokens of the closers, and (with pair tokens) every pair that ends in one.
  const closing = new Set(CLOSING.map((t) => tokens.indexOf(t)));
  const closers = new Set(['"', ",", "}", "]"]);
  tokens.forEach((t, i) => {
    if (t.length === 2 && closers.has(t[1]!)) closing.add(i);
  });
  const openCall = tokens.indexOf("<tool_call>");
  const end = tokens.indexOf("<|im_end|>");
  const perCarrier = closingBias / (CARRIER / 1.5);
  return withColumns(tensor, e, (row, col) => {
    if (col === 0) return closing.has(row) ? perCarrier : 0;
    if (col === 1) return row === openCall ? 4 : undefined;
    if (col === 2) return row === end ? 4 : undefined;
    return undefined;
  });
}

/** The same tensor with some cells replaced: `value(row, col)` returns the new value, or undefined to keep it. */
function withColumns(
  tensor: GgufTensor,
  rowLength: number,
  value: (row: number, col: number) => number | undefined,
): GgufTensor {
  return {
    ...tensor,
    fill: function* () {
      let index = 0;
      for (const chunk of tensor.fill()) {
        for (let i = 0; i < chunk.length; i++, index++) {
          const col = index % rowLength;
          if (col > 2) continue;
          const v = value((index - col) / rowLength, col);
          if (v !== undefined) chunk[i] = v;
        }
        yield chunk;
      }
    },
  };
}

const CHUNK = 1 << 16;

/** Deterministic approximately-normal values (sum of three uniforms), in chunks. */
function* randomChunks(seed: number, name: string, count: number, std: number): Generator<Float32Array> {
  const next = mulberry32((seed ^ hashString(name)) >>> 0);
  const scale = 2 * std; // Var(u1+u2+u3) = 1/4, so (sum - 1.5) * 2 has unit variance
  for (let done = 0; done < count; done += CHUNK) {
    const chunk = new Float32Array(Math.min(CHUNK, count - done));
    for (let i = 0; i < chunk.length; i++) chunk[i] = (next() + next() + next() - 1.5) * scale;
    yield chunk;
  }
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
