import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlamaContextSequence, Token } from "node-llama-cpp";

/** How a sequence came to hold a proposal's shared prefix. */
import type { PrefixSource } from "./local-decode-info.js";

export type { PrefixSource };

/** Most shared prefixes (tool sets) kept as state files at once; the oldest is dropped past it. */
const MAX_PREFIXES = 8;

/**
 * The shared prefix of a delegate's prompts — chat template, rules, candidate tools, the decline — evaluated once
 * per context and copied into every other sequence of the pool, instead of each sequence evaluating it on its
 * first proposal. node-llama-cpp 3.21.1 has no public copy between sequences (llama.cpp's `seq_cp`); it does
 * save and load one sequence's state, so the first sequence that needs a prefix evaluates exactly it and saves
 * it to a file (its KV cells: ~12 KB a token on Qwen2.5-0.5B, ~28 KB on 1.5B), and a sequence that lacks it
 * loads that file — milliseconds, against seconds of prefill on a CPU. Sequences that ask while it is being
 * evaluated wait for it rather than evaluate it too. With one sequence there is nothing to share and nothing is
 * written.
 */
export class SharedPrefixStates {
  #dir: string | undefined;
  #states = new Map<string, Promise<string>>();
  #next = 0;

  /**
   * Makes `sequence` hold `prefix` (the tokens every proposal with these tools begins with), evaluating or
   * copying it when it does not. What it held beyond a different prefix is dropped.
   */
  async prepare(sequence: LlamaContextSequence, prefix: Token[]): Promise<PrefixSource> {
    if (prefix.length === 0 || sequence.compareContextTokens(prefix).firstDifferentIndex >= prefix.length) {
      return "held";
    }
    const key = prefix.join(",");
    const saved = this.#states.get(key);
    if (saved) {
      const path = await saved.catch(() => undefined);
      // A file dropped meanwhile (more tool sets than kept) is evaluated again below.
      const loaded =
        path !== undefined &&
        (await sequence.loadStateFromFile(path, { acceptRisk: true }).then(
          () => true,
          () => false,
        ));
      if (loaded) return "copied";
    }
    const evaluated = this.#evaluate(sequence, prefix);
    this.#remember(key, evaluated);
    await evaluated;
    return "evaluated";
  }

  /** Removes the state files. */
  close(): void {
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    this.#states.clear();
  }

  async #evaluate(sequence: LlamaContextSequence, prefix: Token[]): Promise<string> {
    const held = sequence.compareContextTokens(prefix).firstDifferentIndex;
    if (held < sequence.nextTokenIndex) {
      await sequence.eraseContextTokenRanges([{ start: held, end: sequence.nextTokenIndex }]);
    }
    await sequence.evaluateWithoutGeneratingNewTokens(prefix.slice(held));
    this.#dir ??= mkdtempSync(join(tmpdir(), "deputy-prefix-"));
    const path = join(this.#dir, `${this.#next++}.state`);
    await sequence.saveStateToFile(path);
    return path;
  }

  #remember(key: string, state: Promise<string>): void {
    if (this.#states.size >= MAX_PREFIXES) {
      const [oldest, old] = this.#states.entries().next().value!;
      this.#states.delete(oldest);
      void old.then((path) => rmSync(path, { force: true })).catch(() => undefined);
    }
    this.#states.set(key, state);
    // A failed evaluation (an abort, a closed context) is not remembered: the next proposal tries again.
    state.catch(() => {
      if (this.#states.get(key) === state) this.#states.delete(key);
    });
  }
}
