import type { FamiliarityData } from "./familiarity.js";
import { tokenize } from "./tokenize.js";

// Glue words of ordinary English requests, so the "another domain" variants read like sentences: a model must
// not grow confident because "the", "for" and "with" are familiar.
const GLUE =
  "the a an of for with to in on and or please can you what is how my this that from by at be".split(" ");

function gibberishWord(random: () => number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  const length = 2 + Math.floor(random() * 8);
  let w = "";
  for (let i = 0; i < length; i++) w += letters[Math.floor(random() * (i === 0 ? 26 : letters.length))];
  return w;
}

/**
 * Inputs the model must not be sure about, made from a training instruction: its fixed part (words in at least
 * half of all instructions, i.e. a template's text) followed by nothing, by gibberish, or by a sentence of glue
 * words and made-up words. The calibrator learns from them (as wrong calls) that confidence needs familiar
 * evidence; real held-out inputs teach it everything else.
 */
export function oodVariants(
  instruction: string,
  familiarity: FamiliarityData,
  random: () => number,
): string[] {
  const half = familiarity.documents / 2;
  const fixed = tokenize(instruction)
    .filter((t) => !/[\p{L}\p{N}]/u.test(t.text) || (familiarity.documentFrequency[t.lower] ?? 0) >= half)
    .map((t) => t.text)
    .join(" ");
  const words = (n: number, glue: boolean) =>
    Array.from({ length: n }, () =>
      glue && random() < 0.45 ? GLUE[Math.floor(random() * GLUE.length)]! : gibberishWord(random),
    ).join(" ");
  const n = 2 + Math.floor(random() * 10);
  return [fixed, `${fixed} ${words(n, false)}`, `${fixed} ${words(n + 2, true)}`.trim()];
}
