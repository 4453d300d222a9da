import { isWordToken, tokenize, tokenNumber, type Token } from "./tokenize.js";

/** A text the argument heads can copy from: the instruction, or one fact's value. */
export interface TextSource {
  /** `i` for the instruction, `f:<key>` for a fact. */
  id: string;
  text: string;
  tokens: Token[];
}

/** What every head of a distilled model reads from one (instruction, facts) input, computed once per proposal. */
export interface PreparedInput {
  /** Sparse features for the classifiers (deduplicated). */
  features: string[];
  /** Each feature's value (see {@link featureValues}), aligned with `features`. */
  values: Float64Array;
  /** The texts spans and numbers are taken from. */
  sources: TextSource[];
  /** Distinct lower-cased words of the instruction (numbers left out), for the familiarity measure. */
  words: string[];
}

/** Which features to extract; recorded in the model file so training and prediction agree. */
export interface FeatureConfig {
  /** Character n-gram sizes taken inside each word (with `^`/`$` word boundaries). */
  charNgrams: number[];
  /** Whether to add word bigrams. */
  wordBigrams: boolean;
  /** With an encoder: length of its vector's group relative to each n-gram group (default 1). */
  embeddingWeight?: number;
}

/** The default feature configuration. */
export const DEFAULT_FEATURES: FeatureConfig = { charNgrams: [3, 4], wordBigrams: true };

const MAX_FACT_VALUE = 40;

/**
 * Turns an instruction and its facts into features: word unigrams (`w:`), word bigrams (`b:`), character n-grams
 * (`c:`) of the instruction; for each fact its key and short value (`f:key=value`) and its words (`fw:key:word`).
 * Numbers become `<num>` in word features (the value is read by the number heads, never learned as a word).
 */
export function prepareInput(
  instruction: string,
  facts: Record<string, unknown>,
  config: FeatureConfig = DEFAULT_FEATURES,
  embedding?: Float32Array,
): PreparedInput {
  const features = new Set<string>(["bias"]);
  const instructionTokens = tokenize(instruction);
  const words = new Set<string>();
  let previous = "<s>";
  for (const token of instructionTokens) {
    const word = wordOf(token);
    features.add(`w:${word}`);
    if (config.wordBigrams) features.add(`b:${previous}_${word}`);
    previous = word;
    if (word !== "<num>" && isWordToken(token.text)) {
      words.add(word);
      for (const n of config.charNgrams) addCharNgrams(features, word, n);
    }
  }
  if (config.wordBigrams && instructionTokens.length > 0) features.add(`b:${previous}_</s>`);
  if (instructionTokens.length === 0) features.add("empty");

  const sources: TextSource[] = [{ id: "i", text: instruction, tokens: instructionTokens }];
  for (const key of Object.keys(facts).sort()) {
    const value = facts[key];
    if (value === null || value === undefined || typeof value === "object") {
      features.add(`f:${key}:${value === null || value === undefined ? "null" : "object"}`);
      continue;
    }
    const text = String(value);
    const tokens = tokenize(text);
    sources.push({ id: `f:${key}`, text, tokens });
    if (text.length <= MAX_FACT_VALUE) features.add(`f:${key}=${text.toLowerCase()}`);
    for (const token of tokens) features.add(`fw:${key}:${wordOf(token)}`);
  }
  const list = [...features];
  if (!embedding) return { features: list, sources, words: [...words], values: featureValues(list) };
  // A pretrained encoder's vector is one more group (`e:<i>`), `embeddingWeight` times as long as each other group.
  const others = new Set(list.map(groupOf)).size;
  const w = config.embeddingWeight ?? 1;
  const total = Math.sqrt(others + w * w);
  const values = new Float64Array(list.length + embedding.length);
  values.set(featureValues(list).map((v) => (v * Math.sqrt(others)) / total));
  for (let i = 0; i < embedding.length; i++) {
    list.push(EMBEDDING_FEATURES[i] ?? `e:${i}`);
    values[features.size + i] = (embedding[i]! * w) / total;
  }
  return { features: list, sources, words: [...words], values };
}

/** The same input without the encoder's group, valued as {@link prepareInput} values it without an embedding. */
export function withoutEmbedding(input: PreparedInput): PreparedInput {
  const end = input.features.findIndex((f) => f.startsWith("e:"));
  if (end < 0) return input;
  const features = input.features.slice(0, end);
  return { ...input, features, values: featureValues(features) };
}

const EMBEDDING_FEATURES = Array.from({ length: 4096 }, (_, i) => `e:${i}`);

function groupOf(feature: string): number {
  const c = feature.charCodeAt(0);
  // w: and b: (words), c: (character n-grams), f: and fw: (facts), the rest (bias, empty).
  return c === 119 || c === 98 ? 0 : c === 99 ? 1 : c === 102 ? 2 : 3;
}

/**
 * Feature values: each group (words and bigrams, character n-grams, facts, bias) is scaled to unit length, and
 * the whole vector to unit length. Without groups, a short decisive fact (`f:severity=medium`) would weigh as
 * little as one of a hundred character n-grams.
 */
export function featureValues(features: readonly string[]): Float64Array {
  const sizes = [0, 0, 0, 0];
  for (const f of features) sizes[groupOf(f)]!++;
  const groups = sizes.filter((n) => n > 0).length || 1;
  const scale = sizes.map((n) => (n > 0 ? 1 / Math.sqrt(n * groups) : 0));
  return Float64Array.from(features, (f) => scale[groupOf(f)]!);
}

function wordOf(token: Token): string {
  return tokenNumber(token.text) === undefined ? token.lower : "<num>";
}

function addCharNgrams(features: Set<string>, word: string, n: number): void {
  const padded = `^${word}$`;
  if (padded.length < n) return;
  for (let i = 0; i + n <= padded.length; i++) features.add(`c:${padded.slice(i, i + n)}`);
}
