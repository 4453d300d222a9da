import type { ChatWrapper, LlamaModel, Token } from "node-llama-cpp";
import type { PromptTurn } from "../../runtime/tool-call-prompt.js";

/** What rendering a prompt needs of LocalDelegate's state. */
export interface PromptState {
  model: LlamaModel;
  wrapper: ChatWrapper;
  /** Shared prompt prefix tokens per system prompt. */
  prefixes: Map<string, Token[]>;
}

/** The chat-formatted prompt's tokens, in the model's own template. */
export function renderPrompt(
  state: PromptState,
  system: string,
  user: string,
  turns: readonly PromptTurn[] = [],
): Token[] {
  const { contextText } = state.wrapper.generateContextState({
    chatHistory: [
      { type: "system", text: system },
      // Worked examples as prior exchanges, after the system part so it stays the shared prefix.
      ...turns.flatMap((t) => [
        { type: "user" as const, text: t.user },
        { type: "model" as const, response: [t.assistant] },
      ]),
      { type: "user", text: user },
      { type: "model", response: [] },
    ],
  });
  return contextText.tokenize(state.model.tokenizer);
}

/**
 * The tokens every prompt with this system part begins with, whatever the task: the common prefix of two renders
 * with different tasks (so the template's own tokens around the user turn count as whatever they are, and a
 * token that a task could merge with the text before it is left out). Cached per system prompt.
 */
export function sharedPrefix(state: PromptState, system: string, promptTokens: Token[]): Token[] {
  let prefix = state.prefixes.get(system);
  if (!prefix) {
    const a = renderPrompt(state, system, "Task: a");
    const b = renderPrompt(state, system, "Task: b");
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    prefix = a.slice(0, n);
    if (state.prefixes.size >= 64) state.prefixes.delete(state.prefixes.keys().next().value!);
    state.prefixes.set(system, prefix);
  }
  // A prompt that does not begin with it (a template that moves the system part) shares nothing.
  let n = 0;
  while (n < prefix.length && prefix[n] === promptTokens[n]) n++;
  return n === prefix.length ? prefix : [];
}
