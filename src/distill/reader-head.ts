import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { LabelCall } from "./tuning-set.js";

/**
 * A tuned reader's own label head (`deputy learn --tune`, python/deputy_tune.py): trained with the LoRA adapter on
 * the node's decisions, it reads the reader's pooled vector *before* it is scaled to unit length (the trainer's
 * last-token hidden state) and scores each label — a tool with the arguments a person chooses among. A distilled
 * level trained on that reader carries it and takes its class decision from it; its own heads fill in the
 * arguments the label leaves open (copied spans, numbers).
 */
export interface ReaderHeadData {
  /** sha256 of the tuned GGUF the head reads. */
  sha256: string;
  /** The prefix cut from every instruction when the reader was tuned (its texts are {@link taskText}s). */
  prefix: string;
  /** What each label decides, in the order of `weights`' rows. */
  labels: LabelCall[];
  /** One row of weights per label, each as long as the reader's vector. */
  weights: number[][];
}

const labelCall = z.strictObject({
  name: z.string().nullable(),
  arguments: z.record(z.string(), z.unknown()),
});

/** @internal The model file's `readerHead`. */
export const readerHeadSchema = z
  .strictObject({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 in hex"),
    prefix: z.string(),
    labels: z.array(labelCall).min(2),
    weights: z.array(z.array(z.number().finite()).min(1)).min(2),
  })
  .refine((h) => h.labels.length === h.weights.length, "one row of weights per label")
  .refine((h) => h.weights.every((r) => r.length === h.weights[0]!.length), "rows of one length");

/** The head's logits for a raw (unscaled) vector. */
export function readerHeadLogits(head: Pick<ReaderHeadData, "weights">, raw: Float32Array): number[] {
  return head.weights.map((row) => {
    let s = 0;
    for (let k = 0; k < row.length; k++) s += row[k]! * raw[k]!;
    return s;
  });
}

/** Softmax of logits (stable). */
export function softmax(logits: readonly number[]): number[] {
  const m = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** The record `tuneReader` writes beside a tuned reader (`NAME.reader-SHA12.json`), as far as the head goes. */
const recordSchema = z.looseObject({
  sha256: z.string().optional(),
  prefix: z.string().optional(),
  head: z.strictObject({ labels: z.array(labelCall), weights: z.array(z.array(z.number())) }).optional(),
});

/**
 * The label head recorded beside a tuned reader's GGUF, when that record names this very file (same sha256) and
 * holds a head; otherwise undefined (an encoder that is not a tuned reader, or one tuned before heads were kept).
 * A record that does not parse is ignored as well: the level then keeps its own heads.
 */
export function readerHeadBeside(ggufPath: string, sha256: string): ReaderHeadData | undefined {
  const file = ggufPath.replace(/\.gguf$/, ".json");
  if (file === ggufPath || !existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success || parsed.data.sha256 !== sha256 || !parsed.data.head) return undefined;
  const head = readerHeadSchema.safeParse({ sha256, prefix: parsed.data.prefix ?? "", ...parsed.data.head });
  return head.success ? head.data : undefined;
}
