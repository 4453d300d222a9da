import type {
  ControlledEvaluateInputItem,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaGrammarEvaluationState,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import type { DecodeStats } from "./local-decode-info.js";
import { DelegateBackendError } from "../../errors/index.js";
import type { NodeLlamaCpp } from "./node-llama-cpp-loader.js";
import { abortError } from "./abort-error.js";
import { atChoice, declineChoice, declinedAnswer, pastChoice } from "./decline-choice.js";
import {
  forcedClose,
  mayEndValue,
  type GrammarChecks,
  grammarChecks,
  nativeState,
} from "./local-forced-run.js";
import { nextDraft, openingDraft } from "./local-draft.js";

/**
 * How {@link generateAnswer} reads probabilities while it decodes:
 *
 * - `"none"`: none (llama.cpp's fast path: the greedy token is checked against the grammar, and the grammar
 *   is applied to the whole vocabulary only when it is refused);
 * - `"grammar"`: each token's probability under the grammar (the grammar is applied to the whole vocabulary at
 *   every step: +36 % CPU a proposal on Qwen2.5-0.5B; evaluations only);
 * - `"raw"`: each token's raw probability, read from the step that chose it (greedy only; see
 *   {@link rawProbabilitySupported}).
 */
export type ProbabilityReading = "none" | "grammar" | "raw";

/** A finished answer: its text and tokens, and the probabilities the reading asked for (else empty). */
export interface GeneratedAnswer {
  /** The answer's JSON: the generated tokens' text, completed when decoding stopped at a decided answer. */
  text: string;
  /** The tokens decoded (without the completion `stopWhenDecided` wrote). */
  generated: Token[];
  /** Prompt tokens reused from the sequence's previous evaluation (prefix cache). */
  reused: number;
  /** Per generated token, with `"grammar"`. */
  grammarProbabilities: number[];
  /** Per generated token, with `"raw"`: as `rawGeneratedProbabilities` defines it (top 40, else 0). */
  rawProbabilities: number[];
  /**
   * With `"raw"`: the model's probability of declining at the answer's choice point (`null` against a tool
   * name, among the allowed tokens of the top 40; decline-choice.ts), when the answer reached one.
   */
  declineProbability?: number;
  /** How the answer was decoded. */
  stats: DecodeStats;
}

/** What decoding one answer took (for benchmarks and tests; no times). */

/** What {@link generateAnswer} needs. */
export interface GenerateOptions {
  m: NodeLlamaCpp;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  promptTokens: Token[];
  grammar: LlamaGrammar;
  reading: ProbabilityReading;
  temperature: number;
  seed: number | undefined;
  maxOutputTokens: number;
  /**
   * With `"raw"`: append drafted tokens to a step's batch, checked against the steps' own choices (same tokens
   * and probabilities as step by step, fewer batches). Default false here; LocalDelegate turns it on.
   */
  jumpForward?: boolean;
  /**
   * The structure of the answer before this one (its value tokens as holes, `answerStructure`): where
   * `jumpForward` drafts structure from, and where `openingInPromptBatch` takes the answer's opening from.
   */
  previousAnswer?: readonly Token[];
  /**
   * With `"raw"`: append the answer's opening — `{"name":` as the answer before this one wrote it, in its tokens,
   * up to the choice of tool, when it wrote the choice in a token of its own — to the prompt's batch, each token
   * checked against the model's own pick at its position like a draft. The opening then costs what a prompt token costs instead of a batch of its own; its
   * distributions come from the prompt's batch (llama.cpp's matrix-matrix kernels), so the choice it leads to
   * is read from a distribution rounded as the prompt's is, not as a single step's. Independent of
   * `jumpForward` (decoding with and without it starts the same way). Default false here; LocalDelegate turns
   * it on.
   */
  openingInPromptBatch?: boolean;
  /**
   * With `"raw"`: decline (write `null`) at the choice point when the model's probability of declining there is
   * at least this, even if a tool name is likelier. Unset: the likeliest allowed token, as llama.cpp would.
   */
  declineThreshold?: number;
  /**
   * Stop decoding once the answer is decided: it declined (a decline's arguments can only be empty), or the
   * grammar allows nothing but the closing brackets (with `"raw"`). What is left holds no choice and no value
   * token, so the call and its answer confidence are those of the whole decode, in fewer steps; the answer's
   * text is completed without them. Default false (every token decoded).
   */
  stopWhenDecided?: boolean;
  /** Backend name for errors. */
  name: string;
  signal: AbortSignal | undefined;
}

/**
 * The most tokens a jump-forward batch holds. llama.cpp's CPU kernels compute a batch of up to 3 tokens exactly
 * as single steps (each position's top-40 distribution bit for bit the same, measured on both Qwen2.5-Coder
 * models), and from 4 on switch to matrix-matrix kernels that are cheaper a token but round differently (the
 * first position's top probability moved ~10 % relative) — which changed 10 of 100 calls when forced runs went
 * into one batch. Capped here, jump-forward changes no call and no confidence (bench/RESULTS.md, "Quiet rerun").
 */
const JUMP_BATCH = 3;

/** Tokens within which a decline's `null` is written (`{"`, `name`, `":`, ` null`, with room for whitespace). */
const DECLINE_WITHIN = 8;

/** The raw next-token distribution over the 40 likeliest tokens (as the re-read in local-scoring.ts). */
const RAW_TOP_40 = { temperature: 1, topK: 40, topP: 1, minP: 0 } as const;

/** Whether `"raw"` reading works: greedy decoding and node-llama-cpp's grammar checks present. */
export function rawProbabilitySupported(model: LlamaModel, temperature: number): boolean {
  return temperature === 0 && grammarChecks(model) !== undefined;
}

/**
 * Decodes one grammar-constrained JSON answer on `sequence`, reusing the longest prompt prefix it already holds,
 * and stops at the first complete JSON value (or an end-of-generation token).
 */
export async function generateAnswer(options: GenerateOptions): Promise<GeneratedAnswer> {
  const { m, model, sequence, promptTokens, grammar } = options;
  // Reuse the longest prefix this sequence already holds; at least one token is evaluated to get logits.
  const reused = Math.min(
    sequence.compareContextTokens(promptTokens).firstDifferentIndex,
    promptTokens.length - 1,
  );
  if (reused < sequence.nextTokenIndex) {
    await sequence.eraseContextTokenRanges([{ start: reused, end: sequence.nextTokenIndex }]);
  }
  const state = new m.LlamaGrammarEvaluationState({ model, grammar });
  const answer = new Answer(options);
  if (options.reading === "raw") await decodeRaw(options, promptTokens.slice(reused), state, answer);
  else await decodePlain(options, promptTokens.slice(reused), state, answer);
  return {
    text: answer.decided ?? model.detokenize(answer.generated),
    generated: answer.generated,
    reused,
    grammarProbabilities: answer.grammar,
    rawProbabilities: answer.raw,
    ...(answer.declineProbability !== undefined ? { declineProbability: answer.declineProbability } : {}),
    stats: answer.stats,
  };
}

/** The tokens so far, with the checks every step makes. */
class Answer {
  readonly generated: Token[] = [];
  readonly grammar: number[] = [];
  readonly raw: number[] = [];
  readonly stats: DecodeStats = { batches: 0, drafted: 0, forced: 0, opening: 0 };
  /** The whole answer's text when decoding stopped at a decided answer (`stopWhenDecided`). */
  decided: string | undefined;
  /** The text of the last token added. */
  lastPiece = "";
  /** The decline's probability at the choice point; `chosen` once the answer is past it. */
  declineProbability: number | undefined;
  chosen = false;
  constructor(readonly options: GenerateOptions) {}

  /** Adds a token; true when the answer is complete (or was ended by an end-of-generation token). */
  add(token: Token, probability?: { grammar?: number; raw?: number }): boolean {
    const { model, signal, name, maxOutputTokens } = this.options;
    if (signal?.aborted) throw abortError(name, signal);
    if (model.isEogToken(token)) return true;
    this.generated.push(token);
    if (probability?.grammar !== undefined) this.grammar.push(probability.grammar);
    if (probability?.raw !== undefined) this.raw.push(probability.raw);
    if (this.generated.length > maxOutputTokens) {
      throw new DelegateBackendError(name, `answer exceeded ${maxOutputTokens} tokens`, {
        raw: model.detokenize(this.generated),
      });
    }
    const piece = model.detokenize([token]);
    this.lastPiece = piece;
    if (this.options.stopWhenDecided && this.generated.length <= DECLINE_WITHIN && piece.includes("l")) {
      this.decided = declinedAnswer(model.detokenize(this.generated));
      if (this.decided !== undefined) return true;
    }
    return piece.includes("}") && isCompleteJson(model.detokenize(this.generated));
  }

  /** After the grammar took the last token: true (the answer completed) when only closing brackets may follow. */
  closeIfForced(state: LlamaGrammarEvaluationState, checks: GrammarChecks): boolean {
    if (!this.options.stopWhenDecided) return false;
    // Most steps end inside a string or a number: known from the last token alone, without the whole text.
    if (mayEndValue(this.lastPiece) === false) return false;
    const text = this.options.model.detokenize(this.generated);
    const closing = forcedClose(this.options.model, state, checks, text);
    if (closing === undefined) return false;
    this.decided = text + closing;
    return true;
  }
}

/** llama.cpp's own sampling under the grammar, optionally reading probabilities under it. */
async function decodePlain(
  options: GenerateOptions,
  input: Token[],
  state: LlamaGrammarEvaluationState,
  answer: Answer,
): Promise<void> {
  const withGrammar = options.reading === "grammar";
  for await (const { token, confidence } of options.sequence.evaluateWithMetadata(
    input,
    { confidence: withGrammar } as { confidence: true },
    {
      grammarEvaluationState: state,
      temperature: options.temperature,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    },
  )) {
    answer.stats.batches++;
    if (answer.add(token, withGrammar ? { grammar: confidence } : undefined)) return;
  }
}

/**
 * Greedy decoding under the grammar that keeps each chosen token's raw probability, at almost no cost: every
 * step returns the raw distribution over the 40 likeliest tokens (a top-k pass and a 40-way softmax, against a
 * decode step's full forward pass); the likeliest of them the grammar allows is llama.cpp's greedy choice under
 * the grammar, fed back as the next input. When the grammar allows none of the 40, that step is decoded once
 * more with llama.cpp's own grammar sampling, and the token (outside the top 40) counts as 0 — as in the re-read
 * this replaces.
 *
 * Jump-forward (`jumpForward`): up to two drafted tokens (`nextDraft`, local-draft.ts: the structure of the answer before,
 * text copied from the prompt, else the text the grammar forces) go into the same batch as the step's input
 * ({@link JUMP_BATCH}), each with a distribution read at its position. The draft is then checked token by token
 * against what the steps would have chosen (the same pick from the same distribution): while they agree the
 * drafted token is kept; at the first that differs its own pick is taken and the rest of the draft is erased
 * from the sequence. So each token is the steps' pick, read from the distribution the steps would have read:
 * the same answer and confidence as step by step.
 */
async function decodeRaw(
  options: GenerateOptions,
  first: Token[],
  state: LlamaGrammarEvaluationState,
  answer: Answer,
): Promise<void> {
  const { sequence, model } = options;
  const checks = grammarChecks(model)!;
  const native = nativeState(state);
  const next = {
    generateNext: { probabilities: true, options: { ...RAW_TOP_40, seed: options.seed ?? 0 } },
  } as const;
  const allowed = (t: Token) => checks.canBeNextTokenForGrammarEvaluationState(native, t);
  let input = first;
  for (;;) {
    // The prompt's batch may carry the answer's opening (it is computed with batch kernels anyway). After it,
    // drafted only after a single step's input, and at most JUMP_BATCH - 1 at a time, so every batch is one
    // llama.cpp computes bit for bit like single steps (see JUMP_BATCH); the rest of the run comes next batch.
    const draft =
      input === first
        ? options.openingInPromptBatch
          ? openingDraft(options, state, checks)
          : []
        : options.jumpForward && input.length === 1
          ? nextDraft({ ...options, generated: answer.generated }, state, checks, JUMP_BATCH - 1)
          : [];
    const base = sequence.nextTokenIndex;
    const items: ControlledEvaluateInputItem[] = [
      ...input.slice(0, -1),
      [input.at(-1)!, next],
      ...draft.map((t): ControlledEvaluateInputItem => [t, next]),
    ];
    const outputs = await sequence.controlledEvaluate(items);
    answer.stats.batches++;
    if (input !== first) answer.stats.drafted += draft.length;
    // At items[at] the distribution of the token after it.
    let at = input.length - 1;
    let refused = false;
    for (;;) {
      const probabilities = outputs[at]?.next.probabilities;
      let best = likeliestAllowed(probabilities, allowed);
      if (best !== undefined && !answer.chosen) best = choose(options, answer, probabilities, allowed, best);
      if (best === undefined) {
        refused = true;
        break;
      }
      if (!model.isEogToken(best.token)) checks.acceptGrammarEvaluationStateToken(native, best.token);
      if (answer.add(best.token, { raw: best.probability })) return;
      if (answer.closeIfForced(state, checks)) return;
      const d = at - (input.length - 1);
      if (d < draft.length && draft[d] === best.token) {
        if (input === first) answer.stats.opening++;
        else answer.stats.forced++;
        at++;
        continue;
      }
      // Rest of the run (if any) is not what the model writes: drop it from the sequence.
      if (d < draft.length)
        await sequence.eraseContextTokenRanges([{ start: base + at + 1, end: sequence.nextTokenIndex }]);
      input = [best.token];
      break;
    }
    if (!refused) continue;
    // Re-decode the token at `at` with the grammar applied to the whole vocabulary (llama.cpp's greedy choice).
    const last = items[at]!;
    await sequence.eraseContextTokenRanges([{ start: base + at, end: sequence.nextTokenIndex }]);
    let token: Token | undefined;
    for await (const t of sequence.evaluate([typeof last === "number" ? last : last[0]], {
      grammarEvaluationState: state,
      temperature: 0,
    })) {
      token = t;
      break;
    }
    answer.stats.batches++;
    if (token === undefined || answer.add(token, { raw: 0 })) return;
    if (answer.closeIfForced(state, checks)) return;
    input = [token];
  }
}

/**
 * Before and at the answer's choice point: records the decline's probability there, and declines when it
 * reaches `declineThreshold` (the likeliest declining token instead of `best`).
 */
function choose(
  options: GenerateOptions,
  answer: Answer,
  probabilities: ReadonlyMap<Token, number> | undefined,
  allowed: (token: Token) => boolean,
  best: { token: Token; probability: number },
): { token: Token; probability: number } {
  const { model, declineThreshold } = options;
  const text = model.detokenize(answer.generated);
  if (pastChoice(text)) {
    answer.chosen = true;
    return best;
  }
  const pieceOf = (t: number) => model.detokenize([t as Token]);
  if (declineThreshold !== undefined && !atChoice(text)) {
    // A model copying compact JSON writes the colon and the tool name's quote as one token (`":"`), which would
    // take the choice before the decline is weighed: write up to the colon first, so the next step is the choice.
    return likeliestAllowed(probabilities, (t) => allowed(t) && !pastChoice(text + pieceOf(t))) ?? best;
  }
  const choice = declineChoice(text, probabilities ?? [], pieceOf, (t) => allowed(t as Token));
  if (choice === undefined) return best;
  answer.declineProbability = choice.probability;
  const token = choice.declineToken as Token | undefined;
  if (declineThreshold !== undefined && token !== undefined && choice.probability >= declineThreshold) {
    return { token, probability: probabilities?.get(token) ?? 0 };
  }
  return best;
}

/** The likeliest token of a distribution that `allowed` accepts. */
function likeliestAllowed(
  probabilities: ReadonlyMap<Token, number> | undefined,
  allowed: (token: Token) => boolean,
): { token: Token; probability: number } | undefined {
  const ranked = [...(probabilities ?? [])].sort((a, b) => b[1] - a[1]);
  for (const [token, probability] of ranked) if (allowed(token)) return { token, probability };
  return undefined;
}

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export type { DecodeStats };
