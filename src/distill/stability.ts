import { canonicalJson } from "../runtime/canonical-json.js";
import type { CallOrDecline } from "../records/hop.js";
import { seededRandom } from "./random.js";

/**
 * The stability check of a distilled level: the model predicts again on copies of the instruction with some of
 * its words left out, and a call that does not survive is not trusted. A confident call that turns on a few
 * words ("the payment outage … is fixed", read as an outage) changes when one of them goes; a call the whole text
 * supports does not. Measured on the alert-triage development sets (docs/learning.md): at the same
 * min_confidence it drops wrong calls the confidence alone let through.
 */
export interface StabilityOptions {
  /** Least share of the copies that must give the same decision; below it the proposal's confidence is 0. */
  min: number;
  /** Copies per proposal. Default {@link STABILITY_SAMPLES}. */
  samples?: number;
  /** Chance each word is left out of a copy. Default {@link STABILITY_DROP}. */
  drop?: number;
}

/** Copies per proposal by default (40: the share moves in steps of 2.5 %). */
export const STABILITY_SAMPLES = 40;
/** Chance a word is left out of a copy by default (one word in ten). */
export const STABILITY_DROP = 0.1;

/**
 * `samples` copies of `instruction` with each word after `prefix` left out with chance `drop`; the same
 * instruction always gives the same copies (the random stream is seeded from its text), so a proposal is
 * reproducible and may be cached.
 */
export function perturbedInstructions(
  instruction: string,
  prefix: string,
  samples: number,
  drop: number,
): string[] {
  const head = prefix && instruction.startsWith(prefix) ? prefix : "";
  const words = instruction.slice(head.length).split(" ");
  const next = seededRandom(fnv1a(instruction));
  const copies: string[] = [];
  for (let k = 0; k < samples; k++) {
    const kept = words.filter(() => next() >= drop);
    copies.push(head + kept.join(" "));
  }
  return copies;
}

/**
 * The decision a call makes, for comparing copies: the tool and every argument chosen from a set of values
 * (`isClass`); an argument copied from the text (a title, a number) changes with the words left out and is not
 * compared.
 */
export function decisionKey(
  call: CallOrDecline,
  isClass: (tool: string, argument: string) => boolean,
): string {
  if (call.name === null) return "null";
  const chosen = Object.keys(call.arguments)
    .filter((a) => isClass(call.name!, a))
    .sort()
    .map((a) => [a, call.arguments[a]]);
  return canonicalJson([call.name, chosen]);
}

/** Checks the options; returns them with defaults filled in, or a description of what is wrong. */
export function checkStability(options: StabilityOptions): Required<StabilityOptions> | string {
  const { min, samples = STABILITY_SAMPLES, drop = STABILITY_DROP } = options;
  if (!(typeof min === "number" && min >= 0 && min <= 1)) return "min: a number from 0 to 1";
  if (!(Number.isInteger(samples) && samples >= 1 && samples <= 1000))
    return "samples: a whole number from 1 to 1000";
  if (!(typeof drop === "number" && drop > 0 && drop < 1)) return "drop: a number between 0 and 1";
  return { min, samples, drop };
}

/** FNV-1a of a text: the seed of its copies. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
