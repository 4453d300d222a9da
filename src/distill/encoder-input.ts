import type { EncoderInfo } from "./text-encoder.js";

/** The encoder a model's heads were trained on, as its model file records it. */
export interface EncoderRecord extends EncoderInfo {
  /**
   * Text every training instruction began with (a template's fixed opening, cut at a word boundary). It is cut
   * off before embedding: it says nothing about the input and costs encoder time.
   */
  prefix: string;
}

/** Embeddings for training: the encoder's record and the vector of every text {@link encoderText} gives. */
export interface TrainingEmbeddings {
  encoder: EncoderRecord;
  vectors: ReadonlyMap<string, Float32Array>;
}

/** What the encoder embeds of an instruction: the instruction without the model's recorded prefix. */
export function encoderText(instruction: string, prefix: string): string {
  return prefix && instruction.startsWith(prefix) ? instruction.slice(prefix.length) : instruction;
}

/** The longest opening all instructions share, cut after its last whitespace (so no word is split). */
export function commonPrefix(instructions: readonly string[]): string {
  if (instructions.length < 2) return "";
  let prefix = instructions[0]!;
  for (const s of instructions) {
    let i = 0;
    while (i < prefix.length && i < s.length && prefix[i] === s[i]) i++;
    prefix = prefix.slice(0, i);
    if (!prefix) return "";
  }
  const cut = Math.max(prefix.lastIndexOf(" "), prefix.lastIndexOf("\n"), prefix.lastIndexOf("\t"));
  return cut < 0 ? "" : prefix.slice(0, cut + 1);
}
