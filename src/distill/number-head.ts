import { CandidateRanker, type RankerData, type RankerGroup } from "./candidate-ranker.js";
import type { PreparedInput } from "./input-features.js";
import type { SgdOptions } from "./sgd-options.js";
import { startFeatures } from "./span-head.js";
import { tokenNumber } from "./tokenize.js";

/** A numeric argument read from the text: a ranker over the numbers that occur in the instruction and facts. */
export interface NumberHeadData {
  kind: "number";
  ranker: RankerData;
  /** Whether the schema wants an integer (then only integers are candidates). */
  integer: boolean;
  optional: boolean;
}

const ABSENT = ["absent"];

function candidates(input: PreparedInput, integer: boolean, optional: boolean) {
  const values: number[] = [];
  const features: string[][] = [];
  for (const source of input.sources) {
    source.tokens.forEach((token, i) => {
      const n = tokenNumber(token.text);
      if (n === undefined || (integer && !Number.isInteger(n))) return;
      const negative =
        i > 0 && source.tokens[i - 1]!.text === "-" && source.tokens[i - 1]!.end === token.start;
      values.push(n);
      features.push([...startFeatures(source, i), Number.isInteger(n) ? "int" : "dec"]);
      if (negative) {
        values.push(-n);
        features.push([...startFeatures(source, i), "neg"]);
      }
    });
  }
  if (optional) features.push(ABSENT);
  return { values, features };
}

/** Whether a value is one of the numbers in the input. */
export function numberInInput(input: PreparedInput, value: number, integer: boolean): boolean {
  return candidates(input, integer, false).values.includes(value);
}

/** Trains a number head from inputs and the values taken (`undefined`: absent). */
export function trainNumberHead(
  samples: { input: PreparedInput; value: number | undefined }[],
  integer: boolean,
  optional: boolean,
  sgd: SgdOptions,
): NumberHeadData {
  const groups: RankerGroup[] = [];
  for (const { input, value } of samples) {
    const c = candidates(input, integer, optional);
    const gold = value === undefined ? c.values.length : c.values.indexOf(value);
    if (gold >= 0 && (value !== undefined || optional)) groups.push({ candidates: c.features, gold });
  }
  return { kind: "number", ranker: CandidateRanker.train(groups, sgd).toJSON(), integer, optional };
}

/** A number head ready to predict. */
export class NumberHead {
  readonly #ranker: CandidateRanker;
  readonly #data: NumberHeadData;

  constructor(data: NumberHeadData) {
    this.#data = data;
    this.#ranker = new CandidateRanker(data.ranker);
  }

  /** The most probable number in the input (or absence), with its probability; none found → probability 0. */
  predict(input: PreparedInput): { present: boolean; value?: number; probability: number } {
    const c = candidates(input, this.#data.integer, this.#data.optional);
    if (c.features.length === 0) return { present: false, probability: 0 };
    const p = this.#ranker.probabilities(c.features);
    let k = 0;
    for (let m = 1; m < p.length; m++) if (p[m]! > p[k]!) k = m;
    return k < c.values.length
      ? { present: true, value: c.values[k]!, probability: p[k]! }
      : { present: false, probability: p[k]! };
  }
}
