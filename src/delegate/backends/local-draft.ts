import type { LlamaGrammarEvaluationState, LlamaModel, Token } from "node-llama-cpp";
import { atChoice, pastChoice } from "./decline-choice.js";
import { forcedText, type GrammarChecks, nativeState } from "./local-forced-run.js";

/** Longest run of the answer's last tokens looked up. */
const MAX_MATCH = 4;

/** Most tokens of an answer's opening appended to the prompt's batch (`{"`, `name`, `":`, with room to spare). */
const MAX_OPENING = 4;

/** Characters of forced text read ahead for a draft: they hold the next two tokens of nearly every forced run. */
const FORCED_PROBE_CHARS = 16;

/** What drafts are made from: the model's tokenizer, the answer before (its structure), the prompt, the answer so far. */
export interface DraftSources {
  model: LlamaModel;
  previousAnswer?: readonly Token[] | undefined;
  promptTokens: readonly Token[];
  generated: readonly Token[];
}

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

/**
 * What jump-forward appends after a single step's input, at most `max` tokens: the model's likely next tokens where
 * the answer repeats the answer before it or the prompt ({@link lookupDraft}), else the tokens of the text the
 * grammar forces.
 */
export function nextDraft(
  from: DraftSources,
  state: LlamaGrammarEvaluationState,
  checks: GrammarChecks,
  max: number,
): Token[] {
  const sources = [from.previousAnswer ?? [], from.promptTokens, from.generated];
  const looked = grammarPrefix(state, checks, lookupDraft(sources, from.generated, max));
  if (looked.length > 0) return looked;
  const forced = forcedText(from.model, state, checks, FORCED_PROBE_CHARS);
  if (forced === "") return [];
  const tokens = from.model.tokenize(forced, false);
  // A run that ends where the model's choice begins (`":` before an optional space) may end inside the token
  // the model writes there (`":"`): its last token is a guess worth no batch slot.
  return tokens.slice(
    0,
    Math.min(max, forced.length < FORCED_PROBE_CHARS ? tokens.length - 1 : tokens.length),
  );
}

/**
 * The answer's opening as the answer before it wrote it: its leading tokens up to the choice of tool (`{"`,
 * `name`, `":` for a model that writes `": `), at most {@link MAX_OPENING}, as far as the grammar allows them.
 * Then the prompt's batch ends at the choice, and the batch of three the opening took is saved. Empty when the
 * answer before reached the choice only in the token that makes it (`":"`, colon and quote, as Qwen2.5-Coder-0.5B
 * writes): its opening would save one short batch at most (none measured) while moving two tokens into the
 * prompt's rounding; and empty for the first answer.
 */
export function openingDraft(
  from: Pick<DraftSources, "model" | "previousAnswer">,
  state: LlamaGrammarEvaluationState,
  checks: GrammarChecks,
): Token[] {
  const opening: Token[] = [];
  let text = "";
  for (const token of from.previousAnswer ?? []) {
    if (token < 0 || opening.length === MAX_OPENING) break;
    text += from.model.detokenize([token]);
    if (pastChoice(text)) break;
    opening.push(token);
    if (atChoice(text)) return grammarPrefix(state, checks, opening);
  }
  return [];
}

/** The longest prefix of `tokens` the grammar allows next (checked on a clone: `state` is not moved). */
function grammarPrefix(state: LlamaGrammarEvaluationState, checks: GrammarChecks, tokens: Token[]): Token[] {
  if (tokens.length === 0) return tokens;
  const probe = nativeState(state.clone());
  let n = 0;
  while (n < tokens.length && checks.canBeNextTokenForGrammarEvaluationState(probe, tokens[n]!)) {
    checks.acceptGrammarEvaluationStateToken(probe, tokens[n++]!);
  }
  return tokens.slice(0, n);
}
