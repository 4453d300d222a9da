import type { Token } from "node-llama-cpp";

/** Longest run of the answer's last tokens looked up. */
const MAX_MATCH = 4;

/**
 * A draft for jump-forward from text the answer is likely to repeat (prompt-lookup decoding): the tokens that
 * followed the answer's last tokens where they last occur in one of `sources` — in order, the first with a match
 * of the longest length found wins — at most `max` of them. A tool call copies much of what it writes: its
 * structure from the answer before it (the same keys, the model's own way of splitting them into tokens), its
 * values from the prompt (an alert's id, a task's words for a summary). Matches of one token count only in
 * `sources[0]`; elsewhere a single common token (a quote) says too little to be worth a batch slot. A negative
 * entry in a source is a hole: never matched, never drafted (a draft ends before it).
 *
 * A draft is only a guess: decoding checks every drafted token against the model's own pick at its position and
 * drops it at the first that differs, so what is drafted changes how many batches an answer takes, never the
 * answer.
 */
export function lookupDraft(
  sources: readonly (readonly Token[])[],
  generated: readonly Token[],
  max: number,
): Token[] {
  for (let n = Math.min(MAX_MATCH, generated.length); n >= 1; n--) {
    const tail = generated.length - n;
    for (let s = 0; s < sources.length; s++) {
      if (n === 1 && s > 0) break;
      const source = sources[s]!;
      // Latest occurrence first, and never the tail itself (when the answer is one of the sources).
      for (let i = Math.min(source.length - 1, source === generated ? tail - 1 : Infinity) - n; i >= 0; i--) {
        let k = 0;
        while (k < n && source[i + k] === generated[tail + k]) k++;
        if (k !== n) continue;
        const draft = source.slice(i + n, i + n + max);
        const hole = draft.findIndex((t) => t < 0);
        if (hole !== 0) return hole < 0 ? draft : draft.slice(0, hole);
      }
    }
  }
  return [];
}

/** An answer's tokens with its value tokens made holes: what the next answer may draft its structure from. */
export function answerStructure(tokens: readonly Token[], isValue: readonly boolean[]): Token[] {
  return tokens.map((t, i) => (isValue[i] ? (-1 as Token) : t));
}
