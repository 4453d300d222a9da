import type { LlamaGrammarEvaluationState, LlamaModel, Token } from "node-llama-cpp";

/**
 * node-llama-cpp 3.x's own grammar checks, reached through its internal bindings (what its LlamaChat uses for
 * function calls): whether a token may come next, and accepting it. Undefined when this build lacks them.
 */
export interface GrammarChecks {
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: Token): boolean;
  acceptGrammarEvaluationStateToken(state: unknown, token: Token): void;
}

export function grammarChecks(model: LlamaModel): GrammarChecks | undefined {
  const sampler = (model as unknown as { _llama?: { _bindings?: { AddonSampler?: Partial<GrammarChecks> } } })
    ._llama?._bindings?.AddonSampler;
  return typeof sampler?.canBeNextTokenForGrammarEvaluationState === "function" &&
    typeof sampler.acceptGrammarEvaluationStateToken === "function"
    ? (sampler as GrammarChecks)
    : undefined;
}

/** The native state behind a grammar evaluation state (what the checks take). */
export function nativeState(state: LlamaGrammarEvaluationState): unknown {
  return (state as unknown as { _state: unknown })._state;
}

/** Longest forced run looked ahead at once: a tool name and a key or two; a longer one continues next batch. */
const MAX_FORCED_CHARS = 48;

/** Per model: each printable ASCII character (and `\n`, `\t`) with the one token that is exactly it. */
const characterTokens = new WeakMap<LlamaModel, { char: string; token: Token }[]>();

function charactersOf(model: LlamaModel): { char: string; token: Token }[] {
  let list = characterTokens.get(model);
  if (!list) {
    list = [];
    for (const char of ["\n", "\t", ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))]) {
      const tokens = model.tokenize(char, false);
      if (tokens.length === 1 && model.detokenize(tokens) === char) list.push({ char, token: tokens[0]! });
    }
    characterTokens.set(model, list);
  }
  return list;
}

/**
 * The text the grammar forces next: while exactly one character may come next, that character (found by asking
 * the grammar about each single-character token, on a clone of the state, so `state` is not moved). Outside
 * JSON strings the proposal grammar allows ASCII only, so one allowed ASCII character means one continuation;
 * inside a string many characters are allowed and the run stops. Optional whitespace is a choice (two or more
 * characters allowed), so a run ends where the model's own formatting decides. Empty when the next character
 * is free, or when a model's vocabulary lacks single-character tokens (then nothing is forced).
 */
export function forcedText(
  model: LlamaModel,
  state: LlamaGrammarEvaluationState,
  checks: GrammarChecks,
  maxChars = MAX_FORCED_CHARS,
): string {
  const characters = charactersOf(model);
  if (characters.length < 97) return "";
  const probe = nativeState(state.clone());
  let text = "";
  while (text.length < maxChars) {
    let only: { char: string; token: Token } | undefined;
    let allowed = 0;
    for (const c of characters) {
      if (!checks.canBeNextTokenForGrammarEvaluationState(probe, c.token)) continue;
      only = c;
      if (++allowed > 1) break;
    }
    if (allowed !== 1) break;
    text += only!.char;
    checks.acceptGrammarEvaluationStateToken(probe, only!.token);
  }
  return text;
}

/** The brackets still open at the end of `text` (outside strings), innermost last; undefined inside a string. */
function openBrackets(text: string): string[] | undefined {
  const open: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") open.push(c);
    else if (c === "}" || c === "]") open.pop();
  }
  return inString ? undefined : open;
}

/**
 * Whether `text` (whitespace at its end aside) ends in a character that can end a value: a string's closing
 * quote, a bracket, or a literal's last letter (true, false, null). Only then can {@link forcedClose} find one.
 * Undefined for text that is all whitespace (the answer's earlier text decides).
 */
export function mayEndValue(text: string): boolean | undefined {
  const last = text.trimEnd().at(-1);
  return last === undefined ? undefined : '"}]el'.includes(last);
}

/**
 * The closing brackets that must end the answer, when the grammar allows nothing else after `text` (whitespace
 * aside): the last value is complete and no key, element or separator may follow. Then the answer is decided —
 * the brackets hold no choice and no value — and need not be decoded. Undefined when anything else may come, or
 * when `text` is inside a string or already complete. `state` is not moved (the check runs on a clone).
 */
export function forcedClose(
  model: LlamaModel,
  state: LlamaGrammarEvaluationState,
  checks: GrammarChecks,
  text: string,
): string | undefined {
  if (mayEndValue(text) !== true) return undefined;
  const open = openBrackets(text);
  if (!open || open.length === 0) return undefined;
  const characters = charactersOf(model);
  if (characters.length < 97) return undefined;
  const comma = characters.find((c) => c.char === ",")!;
  // Cheapest refusal first: a separator allowed means more may follow.
  if (checks.canBeNextTokenForGrammarEvaluationState(nativeState(state), comma.token)) return undefined;
  const probe = nativeState(state.clone());
  let closing = "";
  for (const bracket of open.reverse()) {
    const close = bracket === "{" ? "}" : "]";
    let only: Token | undefined;
    for (const c of characters) {
      if (c.char === " " || c.char === "\n" || c.char === "\t") continue;
      if (!checks.canBeNextTokenForGrammarEvaluationState(probe, c.token)) continue;
      if (c.char !== close || only !== undefined) return undefined;
      only = c.token;
    }
    if (only === undefined) return undefined;
    checks.acceptGrammarEvaluationStateToken(probe, only);
    closing += close;
  }
  return closing;
}
