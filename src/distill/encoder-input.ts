import { canonicalJson } from "../runtime/canonical-json.js";
import type { EncoderInfo } from "./text-encoder.js";

/** The encoder a model's heads were trained on, as its model file records it. */
export interface EncoderRecord extends EncoderInfo {
  /**
   * Text every training instruction began with (a template's fixed opening, cut at a word boundary). It is cut
   * off before embedding: it says nothing about the input and costs encoder time.
   */
  prefix: string;
  /**
   * What was embedded: `"task"` — the rendered task, the facts then the instruction (see {@link taskText}); absent —
   * the instruction alone (a sentence encoder, and every model file written before the field existed).
   */
  input?: "task";
}

/** Embeddings for training: the encoder's record and the vector of every text {@link encoderInput} gives. */
export interface TrainingEmbeddings {
  encoder: EncoderRecord;
  vectors: ReadonlyMap<string, Float32Array>;
}

/** What the encoder embeds of an instruction: the instruction without the model's recorded prefix. */
export function encoderText(instruction: string, prefix: string): string {
  return prefix && instruction.startsWith(prefix) ? instruction.slice(prefix.length) : instruction;
}

/**
 * The rendered task a decoder model embeds: one `key: value` line per fact (sorted), then the instruction without
 * the prefix, then `Action:`. A decoder's vector is its last token's hidden state (see `pooling` in
 * {@link EncoderInfo}), so the text ends where the model would name the action.
 */
export function taskText(instruction: string, facts: Record<string, unknown>, prefix: string): string {
  const lines = Object.keys(facts)
    .sort()
    .map((key) => `${key}: ${typeof facts[key] === "string" ? facts[key] : canonicalJson(facts[key])}`);
  return [...lines, encoderText(instruction, prefix), "Action:"].join("\n");
}

/** The text a model's encoder embeds for one input, as its record says. */
export function encoderInput(
  encoder: Pick<EncoderRecord, "prefix" | "input">,
  instruction: string,
  facts: Record<string, unknown>,
): string {
  return encoder.input === "task"
    ? taskText(instruction, facts, encoder.prefix)
    : encoderText(instruction, encoder.prefix);
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
