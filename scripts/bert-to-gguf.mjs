#!/usr/bin/env node
// Converts a Hugging Face BERT sentence encoder (a directory with config.json,
// tokenizer.json, model.safetensors, 1_Pooling/config.json — the
// sentence-transformers layout) into a GGUF file that llama.cpp (and so
// node-llama-cpp's embedding API) loads as architecture "bert".
//
//   node scripts/bert-to-gguf.mjs MODEL_DIR OUT.gguf [NAME] [f32|q8_0]
//
// It does what llama.cpp's convert_hf_to_gguf.py does for BertModel (tensor
// names from gguf-py's tensor_mapping.py, the WordPiece vocabulary in
// "phantom space" form, mean or CLS pooling from the pooling config), without
// Python, torch or transformers, so a CI machine needs nothing but Node.
// Weights stay float32, or (q8_0) the matrices are quantised to 8 bits per
// weight the way ggml's quantize_row_q8_0_ref does (blocks of 32 with an f16
// scale; ~4x smaller, faster on CPUs with int8 dot products); norms and biases
// stay float32. The output is byte-for-byte reproducible.
import { Buffer } from "node:buffer";
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";

const [dir, out, name = "bert-encoder", type = "f32"] = process.argv.slice(2);
if (!dir || !out || !["f32", "q8_0"].includes(type)) {
  console.error("usage: bert-to-gguf.mjs MODEL_DIR OUT.gguf [NAME] [f32|q8_0]");
  process.exit(2);
}

const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
const tokenizer = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8"));
let pooling = { pooling_mode_mean_tokens: true };
try {
  pooling = JSON.parse(readFileSync(join(dir, "1_Pooling", "config.json"), "utf8"));
} catch {
  // no pooling config: mean pooling, the sentence-transformers default
}
if (config.model_type !== "bert") throw new Error(`not a BERT model: ${config.model_type}`);
if (tokenizer.model?.type !== "WordPiece") throw new Error("tokenizer is not WordPiece");

// --- safetensors -----------------------------------------------------------
const st = readFileSync(join(dir, "model.safetensors"));
const headerLength = Number(st.readBigUInt64LE(0));
const header = JSON.parse(st.subarray(8, 8 + headerLength).toString("utf8"));
const dataStart = 8 + headerLength;

/** HF tensor name → GGUF tensor name (gguf-py MODEL_ARCH.BERT mapping). */
function ggufName(hf) {
  const n = hf
    .replace(/^bert\./, "")
    .replace(/\.gamma$/, ".weight")
    .replace(/\.beta$/, ".bias");
  const fixed = {
    "embeddings.word_embeddings": "token_embd",
    "embeddings.token_type_embeddings": "token_types",
    "embeddings.position_embeddings": "position_embd",
    "embeddings.LayerNorm": "token_embd_norm",
  };
  const m = /^(.*)\.(weight|bias)$/.exec(n);
  if (!m) return undefined;
  const [, base, kind] = m;
  if (fixed[base]) return `${fixed[base]}.${kind}`;
  const layer = /^encoder\.layer\.(\d+)\.(.*)$/.exec(base);
  if (!layer) return undefined;
  const parts = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
  };
  const part = parts[layer[2]];
  return part ? `blk.${layer[1]}.${part}.${kind}` : undefined;
}

const tensors = [];
for (const [hf, info] of Object.entries(header)) {
  if (hf === "__metadata__") continue;
  const gg = ggufName(hf);
  if (!gg) continue; // position_ids, pooler, heads: not used for embeddings
  if (info.dtype !== "F32") throw new Error(`${hf}: dtype ${info.dtype} (only F32 is supported)`);
  const [begin, end] = info.data_offsets;
  const raw = st.subarray(dataStart + begin, dataStart + end);
  // Matrices that are multiplied (and the token table, which is only looked up); position and token-type tables
  // are added to activations, which ggml's CPU backend does in float32 only.
  const quantise =
    type === "q8_0" &&
    info.shape.length === 2 &&
    info.shape[1] % 32 === 0 &&
    !/^(position_embd|token_types)\./.test(gg);
  tensors.push({
    name: gg,
    shape: info.shape,
    ggmlType: quantise ? 8 : 0, // GGML_TYPE_Q8_0 : GGML_TYPE_F32
    data: quantise ? quantiseQ8_0(raw) : raw,
  });
}

/** float32 → IEEE half bits, round to nearest even (as ggml's FP32_TO_FP16 on CPUs without F16C). */
function toHalf(value) {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    if (rest > midpoint || (rest === midpoint && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** ggml's quantize_row_q8_0_ref: per block of 32, d = max|x| / 127 (stored f16), q = round(x / d). */
function quantiseQ8_0(raw) {
  const x = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  const blocks = x.length / 32;
  const out = Buffer.alloc(blocks * 34);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b * 32 + j]));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    out.writeUInt16LE(toHalf(d), b * 34);
    for (let j = 0; j < 32; j++) {
      const v = Math.fround(x[b * 32 + j] * id);
      out.writeInt8(Math.sign(v) * Math.round(Math.abs(v)), b * 34 + 2 + j); // roundf: half away from zero
    }
  }
  return out;
}
tensors.sort((a, b) => a.name.localeCompare(b.name));

// --- vocabulary (phantom space, as convert_hf_to_gguf.py BertModel.set_vocab) ---
const vocab = Object.entries(tokenizer.model.vocab).sort((a, b) => a[1] - b[1]);
vocab.forEach(([, id], i) => {
  if (id !== i) throw new Error(`vocabulary ids are not dense at ${i}`);
});
const special = new Set((tokenizer.added_tokens ?? []).filter((t) => t.special).map((t) => t.content));
const CONTROL = 3;
const NORMAL = 1;
const tokens = vocab.map(([tok]) =>
  special.has(tok) ? tok : tok.startsWith("##") ? tok.slice(2) : `\u2581${tok}`,
);
const tokenTypes = vocab.map(([tok]) => (special.has(tok) ? CONTROL : NORMAL));
const idOf = (tok, fallback) => tokenizer.model.vocab[tok] ?? fallback;

// --- GGUF writer -------------------------------------------------------------
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
const chunks = [];
const u32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  chunks.push(b);
};
const i32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  chunks.push(b);
};
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  chunks.push(b);
};
const f32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(v);
  chunks.push(b);
};
const str = (s) => {
  const b = Buffer.from(s, "utf8");
  u64(b.length);
  chunks.push(b);
};

const kv = [];
const arch = "bert";
kv.push(["general.architecture", T.STRING, arch]);
kv.push(["general.name", T.STRING, name]);
kv.push(["general.file_type", T.UINT32, type === "q8_0" ? 7 : 0]); // MOSTLY_Q8_0 : ALL_F32
kv.push([`${arch}.context_length`, T.UINT32, config.max_position_embeddings]);
kv.push([`${arch}.embedding_length`, T.UINT32, config.hidden_size]);
kv.push([`${arch}.feed_forward_length`, T.UINT32, config.intermediate_size]);
kv.push([`${arch}.block_count`, T.UINT32, config.num_hidden_layers]);
kv.push([`${arch}.attention.head_count`, T.UINT32, config.num_attention_heads]);
kv.push([`${arch}.attention.layer_norm_epsilon`, T.FLOAT32, config.layer_norm_eps]);
kv.push([`${arch}.attention.causal`, T.BOOL, false]);
kv.push([`${arch}.pooling_type`, T.UINT32, pooling.pooling_mode_cls_token ? 2 : 1]); // 1 mean, 2 cls
kv.push(["tokenizer.ggml.model", T.STRING, "bert"]);
kv.push(["tokenizer.ggml.pre", T.STRING, "default"]);
kv.push(["tokenizer.ggml.tokens", T.ARRAY, [T.STRING, tokens]]);
kv.push(["tokenizer.ggml.token_type", T.ARRAY, [T.INT32, tokenTypes]]);
kv.push(["tokenizer.ggml.token_type_count", T.UINT32, config.type_vocab_size ?? 1]);
kv.push(["tokenizer.ggml.bos_token_id", T.UINT32, idOf("[CLS]", 101)]);
kv.push(["tokenizer.ggml.seperator_token_id", T.UINT32, idOf("[SEP]", 102)]);
kv.push(["tokenizer.ggml.unknown_token_id", T.UINT32, idOf("[UNK]", 100)]);
kv.push(["tokenizer.ggml.padding_token_id", T.UINT32, idOf("[PAD]", 0)]);
kv.push(["tokenizer.ggml.mask_token_id", T.UINT32, idOf("[MASK]", 103)]);

function value(type, v) {
  if (type === T.STRING) str(v);
  else if (type === T.UINT32) u32(v);
  else if (type === T.INT32) i32(v);
  else if (type === T.FLOAT32) f32(v);
  else if (type === T.BOOL) chunks.push(Buffer.from([v ? 1 : 0]));
  else if (type === T.ARRAY) {
    const [itemType, items] = v;
    u32(itemType);
    u64(items.length);
    for (const item of items) value(itemType, item);
  } else throw new Error(`unsupported type ${type}`);
}

const ALIGN = 32;
const align = (n) => Math.ceil(n / ALIGN) * ALIGN;

chunks.push(Buffer.from("GGUF", "ascii"));
u32(3);
u64(tensors.length);
u64(kv.length);
for (const [key, type, v] of kv) {
  str(key);
  u32(type);
  value(type, v);
}
let offset = 0;
for (const t of tensors) {
  str(t.name);
  u32(t.shape.length);
  for (const d of [...t.shape].reverse()) u64(d); // ggml order: innermost first
  u32(t.ggmlType);
  u64(offset);
  offset = align(offset + t.data.length);
}
let size = chunks.reduce((s, c) => s + c.length, 0);
chunks.push(Buffer.alloc(align(size) - size));
for (const t of tensors) {
  chunks.push(t.data);
  chunks.push(Buffer.alloc(align(t.data.length) - t.data.length));
}
const tmp = `${out}.tmp.${process.pid}`;
writeFileSync(tmp, Buffer.concat(chunks));
renameSync(tmp, out);
console.error(`bert-to-gguf: ${tensors.length} tensors, ${tokens.length} tokens → ${out}`);
