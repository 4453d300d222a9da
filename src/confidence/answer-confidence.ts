/**
 * Confidence in the whole answer, read from the probabilities the grammar-constrained generation already
 * produced (see docs/quality.md for how the methods were compared on real weights).
 *
 * Each generated token comes with its probability under the grammar: the model's next-token distribution
 * renormalised over the tokens the grammar allowed at that point. Where the grammar left no real choice (a
 * key, a bracket, the rest of a tool name once it is unambiguous) that probability is 1 and the token adds
 * nothing; where it did — which tool, whether to decline, each argument's value, when a string ends, which
 * optional keys appear — it is the model's own belief in what it chose. So:
 *
 * - `joint`: the product over all tokens, i.e. the probability the constrained model gives its own answer;
 * - `min`: the least likely single choice in the answer (its weakest link);
 * - `mean`: their average.
 */

/** How a delegate measures `confidence`: the whole answer (default) or only the choice of tool. */
export type ConfidenceMethod = "answer" | "choice";

/** Every {@link ConfidenceMethod}, for option checks. */
export const CONFIDENCE_METHODS: readonly ConfidenceMethod[] = ["answer", "choice"];

/** How per-token probabilities are combined into one score. */
export type TokenCombination = "joint" | "min" | "mean";

/** The combination deputy uses (chosen on a fit split of labelled proposals; docs/quality.md). */
export const ANSWER_TOKENS: TokenCombination = "joint";

/**
 * deputy's answer confidence: the probabilities of the answer's value tokens ({@link valueTokens}) combined by
 * {@link ANSWER_TOKENS}. `pieces[i]` is token i's text, `probabilities[i]` its probability.
 */
export function answerConfidenceOfTokens(
  pieces: readonly string[],
  probabilities: readonly number[],
): number {
  const mask = valueTokens(pieces);
  return answerConfidence(
    probabilities.filter((_, i) => mask[i]),
    ANSWER_TOKENS,
  );
}

/**
 * The answer's confidence from each generated token's probability under the grammar, combined by `combine`
 * (default `joint`); 0 for an empty answer (nothing was chosen with any certainty).
 */
export function answerConfidence(
  probabilities: readonly number[],
  combine: TokenCombination = "joint",
): number {
  if (probabilities.length === 0) return 0;
  if (combine === "min") return Math.min(...probabilities.map(clamp));
  if (combine === "mean") return probabilities.reduce((sum, p) => sum + clamp(p), 0) / probabilities.length;
  let log = 0;
  for (const p of probabilities) log += Math.log(clamp(p));
  return Math.exp(log);
}

/** A probability read from float32 arithmetic, kept inside [0, 1] (it can overshoot 1 by rounding). */
function clamp(p: number): number {
  return Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0;
}

/**
 * Which generated tokens carry part of a *value* of the JSON answer — the tool name (or `null`) and every
 * argument's value — rather than its structure (brackets, keys, quotes, separators, whitespace). A value
 * token's probability is the model's belief in what it chose; a structural token's is mostly formatting
 * (`":"` against `": "`), which the grammar leaves open but which says nothing about the call.
 */
export function valueTokens(pieces: readonly string[]): boolean[] {
  const text = pieces.join("");
  const value = new Uint8Array(text.length);
  const stack: ("object" | "array")[] = [];
  let expectKey = false;
  let inString = false;
  let isKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") {
        if (!isKey) value[i] = value[i + 1] = 1;
        i++;
      } else if (c === '"') inString = false;
      else if (!isKey) value[i] = 1;
      continue;
    }
    if (c === '"') {
      inString = true;
      isKey = stack.at(-1) === "object" && expectKey;
    } else if (c === "{" || c === "[") {
      stack.push(c === "{" ? "object" : "array");
      expectKey = c === "{";
    } else if (c === "}" || c === "]") {
      stack.pop();
      expectKey = false;
    } else if (c === ":") expectKey = false;
    else if (c === ",") expectKey = stack.at(-1) === "object";
    else if (!/\s/.test(c)) value[i] = 1;
  }
  const out: boolean[] = [];
  let at = 0;
  for (const piece of pieces) {
    out.push(value.subarray(at, at + piece.length).some((v) => v === 1));
    at += piece.length;
  }
  return out;
}
