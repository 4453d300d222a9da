import { CandidateRanker, type RankerData, type RankerGroup } from "./candidate-ranker.js";
import type { PreparedInput, TextSource } from "./input-features.js";
import type { SgdOptions } from "./sgd-options.js";
import { tokenNumber, tokenShape } from "./tokenize.js";

/** A string argument copied from the text: a start ranker and an end ranker over token positions. */
export interface SpanHeadData {
  kind: "span";
  start: RankerData;
  end: RankerData;
  /** Longest span considered, in tokens. */
  maxLength: number;
  /** Whether the argument may be left out (then "absent" is a start candidate). */
  optional: boolean;
}

/** Where a value sits in the input: source index, first and last token. */
export interface SpanLocation {
  source: number;
  first: number;
  last: number;
}

const ABSENT = ["absent"];

function word(source: TextSource, i: number, edge: string): string {
  const t = source.tokens[i];
  if (!t) return edge;
  return tokenNumber(t.text) === undefined ? t.lower : "<num>";
}

const startCache = new WeakMap<TextSource, string[][]>();
const endCache = new WeakMap<TextSource, string[][]>();

function cached(
  cache: WeakMap<TextSource, string[][]>,
  source: TextSource,
  make: (i: number) => string[],
): string[][] {
  let rows = cache.get(source);
  if (!rows) {
    rows = source.tokens.map((_, i) => make(i));
    cache.set(source, rows);
  }
  return rows;
}

/** Features of token `i` of a source as the first token of a span (also used for numbers); computed once per source. */
export function startFeatures(source: TextSource, i: number): string[] {
  return cached(startCache, source, (k) => makeStartFeatures(source, k))[i]!;
}

function makeStartFeatures(source: TextSource, i: number): string[] {
  const t = source.tokens[i]!;
  const f = [
    `s=${source.id}`,
    `w=${word(source, i, "")}`,
    `p=${word(source, i - 1, "<s>")}`,
    `p2=${word(source, i - 2, "<s>")}_${word(source, i - 1, "<s>")}`,
    `n=${word(source, i + 1, "</s>")}`,
    `sh=${tokenShape(t.text)}`,
    `psh=${i > 0 ? tokenShape(source.tokens[i - 1]!.text) : "<s>"}`,
  ];
  if (i === 0) f.push(`first:${source.id}`);
  return f;
}

function lengthBucket(n: number): string {
  return n <= 4 ? String(n) : n <= 6 ? "5-6" : n <= 9 ? "7-9" : n <= 14 ? "10-14" : n <= 24 ? "15-24" : "25+";
}

/** Features of token `j` as the last token of a span that starts at `i`. */
export function endFeatures(source: TextSource, i: number, j: number): string[] {
  return [
    ...cached(endCache, source, (k) => makeEndFeatures(source, k))[j]!,
    `len=${lengthBucket(j - i + 1)}`,
  ];
}

function makeEndFeatures(source: TextSource, j: number): string[] {
  const t = source.tokens[j]!;
  const f = [
    `s=${source.id}`,
    `w=${word(source, j, "")}`,
    `n=${word(source, j + 1, "</s>")}`,
    `n2=${word(source, j + 1, "</s>")}_${word(source, j + 2, "</s>")}`,
    `sh=${tokenShape(t.text)}`,
  ];
  if (j === source.tokens.length - 1) f.push(`last:${source.id}`);
  return f;
}

/** Finds a string value as a whole-token span of the input (instruction first, then facts), if it is one. */
export function locateSpan(input: PreparedInput, value: string): SpanLocation | undefined {
  if (value === "") return undefined;
  for (let s = 0; s < input.sources.length; s++) {
    const source = input.sources[s]!;
    for (let i = 0; i < source.tokens.length; i++) {
      const start = source.tokens[i]!.start;
      if (!source.text.startsWith(value, start)) continue;
      const end = start + value.length;
      for (let j = i; j < source.tokens.length && source.tokens[j]!.start < end; j++) {
        if (source.tokens[j]!.end === end) return { source: s, first: i, last: j };
      }
    }
  }
  return undefined;
}

function startCandidates(input: PreparedInput, optional: boolean) {
  const places: { source: number; i: number }[] = [];
  const features: string[][] = [];
  input.sources.forEach((source, s) => {
    for (let i = 0; i < source.tokens.length; i++) {
      places.push({ source: s, i });
      features.push(startFeatures(source, i));
    }
  });
  if (optional) features.push(ABSENT);
  return { places, features };
}

function endCandidates(source: TextSource, i: number, maxLength: number): string[][] {
  const out: string[][] = [];
  for (let j = i; j < Math.min(source.tokens.length, i + maxLength); j++) out.push(endFeatures(source, i, j));
  return out;
}

/** Trains a span head from inputs and where each value was found (`undefined`: the argument was absent). */
export function trainSpanHead(
  samples: { input: PreparedInput; location: SpanLocation | undefined }[],
  optional: boolean,
  sgd: SgdOptions,
): SpanHeadData {
  const maxLength = Math.min(
    64,
    2 + Math.max(1, ...samples.map((s) => (s.location ? s.location.last - s.location.first + 1 : 1))),
  );
  const starts: RankerGroup[] = [];
  const ends: RankerGroup[] = [];
  for (const { input, location } of samples) {
    const { places, features } = startCandidates(input, optional);
    const gold = location
      ? places.findIndex((p) => p.source === location.source && p.i === location.first)
      : places.length;
    starts.push({ candidates: features, gold });
    if (location) {
      const source = input.sources[location.source]!;
      ends.push({
        candidates: endCandidates(source, location.first, maxLength),
        gold: location.last - location.first,
      });
    }
  }
  return {
    kind: "span",
    start: CandidateRanker.train(starts, sgd).toJSON(),
    end: CandidateRanker.train(ends, sgd).toJSON(),
    maxLength,
    optional,
  };
}

/** A span head ready to predict. */
export class SpanHead {
  readonly #start: CandidateRanker;
  readonly #end: CandidateRanker;
  readonly #data: SpanHeadData;

  constructor(data: SpanHeadData) {
    this.#data = data;
    this.#start = new CandidateRanker(data.start);
    this.#end = new CandidateRanker(data.end);
  }

  /** The most probable span (joint over the three likeliest starts), or absence, with its probability. */
  predict(input: PreparedInput): { present: boolean; value?: string; probability: number } {
    const { places, features } = startCandidates(input, this.#data.optional);
    if (features.length === 0) return { present: false, probability: 0 };
    const p = this.#start.probabilities(features);
    const order = Array.from(p.keys())
      .sort((a, b) => p[b]! - p[a]!)
      .slice(0, 3);
    let best: { present: boolean; value?: string; probability: number } = { present: false, probability: 0 };
    for (const k of order) {
      const place = places[k];
      if (!place) {
        if (p[k]! > best.probability) best = { present: false, probability: p[k]! };
        continue;
      }
      const source = input.sources[place.source]!;
      const pe = this.#end.probabilities(endCandidates(source, place.i, this.#data.maxLength));
      let j = 0;
      for (let m = 1; m < pe.length; m++) if (pe[m]! > pe[j]!) j = m;
      const probability = p[k]! * pe[j]!;
      if (probability > best.probability) {
        const last = source.tokens[place.i + j]!;
        best = {
          present: true,
          value: source.text.slice(source.tokens[place.i]!.start, last.end),
          probability,
        };
      }
    }
    return best;
  }
}
