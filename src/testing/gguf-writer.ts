import { closeSync, openSync, writeSync } from "node:fs";

/** A GGUF metadata value with its GGUF type. */
export type GgufValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: readonly string[] }
  | { type: "f32[]"; value: readonly number[] | Float32Array }
  | { type: "i32[]"; value: readonly number[] | Int32Array };

/** Tensor element types the writer can produce. */
export type GgufTensorType = "f32" | "f16" | "q8_0";

/** One tensor: `dims` innermost first (GGUF order, `ne[0]` = row length); `fill` writes its values. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  type: GgufTensorType;
  /**
   * Produces the tensor's values, row-major, as float32 chunks (any chunk size; for `q8_0` a multiple of 32).
   * Called once, while the file is written, so a large tensor never has to sit in memory whole.
   */
  fill: () => Iterable<Float32Array>;
}

const ALIGNMENT = 32;
const GGML_TYPE = { f32: 0, f16: 1, q8_0: 8 } as const;
const VALUE_TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;

/** Bytes one tensor occupies in the file (before alignment padding). */
export function tensorByteSize(tensor: Pick<GgufTensor, "dims" | "type">): number {
  const count = tensor.dims.reduce((a, b) => a * b, 1);
  if (tensor.type === "f32") return count * 4;
  if (tensor.type === "f16") return count * 2;
  if ((tensor.dims[0] ?? 0) % 32 !== 0) throw new RangeError("q8_0 rows must be a multiple of 32 values");
  return (count / 32) * 34;
}

/**
 * Writes a GGUF v3 file: header, metadata key/values in the given order, tensor infos, then 32-byte-aligned
 * tensor data. Streams tensor data to disk chunk by chunk.
 */
export function writeGguf(
  path: string,
  metadata: Record<string, GgufValue>,
  tensors: readonly GgufTensor[],
): void {
  const head = new ByteSink();
  head.u32(0x46554747); // "GGUF"
  head.u32(3);
  head.u64(tensors.length);
  head.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    head.string(key);
    writeValue(head, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    head.string(tensor.name);
    head.u32(tensor.dims.length);
    for (const d of tensor.dims) head.u64(d);
    head.u32(GGML_TYPE[tensor.type]);
    head.u64(offset);
    offset = align(offset + tensorByteSize(tensor));
  }
  head.pad(ALIGNMENT);

  const fd = openSync(path, "w");
  try {
    writeSync(fd, head.bytes());
    for (const tensor of tensors) {
      const size = tensorByteSize(tensor);
      let written = 0;
      for (const chunk of tensor.fill()) {
        const bytes = encode(chunk, tensor.type);
        writeSync(fd, bytes);
        written += bytes.length;
      }
      if (written !== size) {
        throw new RangeError(`Tensor ${tensor.name}: fill produced ${written} bytes, expected ${size}`);
      }
      const padding = align(size) - size;
      if (padding > 0) writeSync(fd, Buffer.alloc(padding));
    }
  } finally {
    closeSync(fd);
  }
}

function align(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

function writeValue(sink: ByteSink, value: GgufValue): void {
  switch (value.type) {
    case "u32":
      sink.u32(VALUE_TYPE.u32);
      sink.u32(value.value);
      return;
    case "i32":
      sink.u32(VALUE_TYPE.i32);
      sink.i32(value.value);
      return;
    case "f32":
      sink.u32(VALUE_TYPE.f32);
      sink.f32(value.value);
      return;
    case "bool":
      sink.u32(VALUE_TYPE.bool);
      sink.u8(value.value ? 1 : 0);
      return;
    case "string":
      sink.u32(VALUE_TYPE.string);
      sink.string(value.value);
      return;
    case "string[]":
      sink.u32(VALUE_TYPE.array);
      sink.u32(VALUE_TYPE.string);
      sink.u64(value.value.length);
      for (const s of value.value) sink.string(s);
      return;
    case "f32[]":
      sink.u32(VALUE_TYPE.array);
      sink.u32(VALUE_TYPE.f32);
      sink.u64(value.value.length);
      for (const x of value.value) sink.f32(x);
      return;
    case "i32[]":
      sink.u32(VALUE_TYPE.array);
      sink.u32(VALUE_TYPE.i32);
      sink.u64(value.value.length);
      for (const x of value.value) sink.i32(x);
      return;
  }
}

function encode(values: Float32Array, type: GgufTensorType): Uint8Array {
  if (type === "f32") return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  if (type === "f16") {
    const out = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = toHalf(values[i]!);
    return new Uint8Array(out.buffer);
  }
  if (values.length % 32 !== 0) throw new RangeError("q8_0 chunks must hold a multiple of 32 values");
  const blocks = values.length / 32;
  const out = Buffer.alloc(blocks * 34);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(values[b * 32 + i]!));
    const d = amax / 127;
    const inv = d === 0 ? 0 : 1 / d;
    out.writeUInt16LE(toHalf(d), b * 34);
    for (let i = 0; i < 32; i++) out.writeInt8(Math.round(values[b * 32 + i]! * inv), b * 34 + 2 + i);
  }
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE-754 binary16 bits of a number (round to nearest, flush tiny values to zero). */
export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  const mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) return sign;
  const half = sign | (exp << 10) | (mant >> 13);
  return mant & 0x1000 ? half + 1 : half;
}

/** Little-endian byte builder for the (small) header part of the file. */
class ByteSink {
  #chunks: Buffer[] = [];
  #length = 0;

  #push(buf: Buffer) {
    this.#chunks.push(buf);
    this.#length += buf.length;
  }
  u8(v: number) {
    this.#push(Buffer.from([v]));
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.#push(b);
  }
  i32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.#push(b);
  }
  f32(v: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.#push(b);
  }
  u64(v: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.#push(b);
  }
  string(s: string) {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.#push(bytes);
  }
  pad(alignment: number) {
    const rest = this.#length % alignment;
    if (rest !== 0) this.#push(Buffer.alloc(alignment - rest));
  }
  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
