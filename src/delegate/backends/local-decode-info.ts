// What LocalDelegate reports about a decode, in a module of its own: LocalDelegate's public types name these, and
// the modules that compute them import node-llama-cpp's types, which a user without node-llama-cpp (an optional
// peer dependency) must not need to type-check against deputy-js.

/** Counters of one proposal's decode. */
export interface DecodeStats {
  /** Evaluation batches of this sequence: the prompt's, one per step, one per forced run. */
  batches: number;
  /** Tokens appended as forced runs (jump-forward), whether kept or not. */
  drafted: number;
  /** Generated tokens that came from a forced run (not a decode step of their own). */
  forced: number;
  /** Generated tokens of the answer's opening that came in the prompt's batch (`openingInPromptBatch`). */
  opening: number;
}

/** Where a sequence's shared prompt prefix came from: already held, copied from another sequence, or evaluated. */
export type PrefixSource = "held" | "copied" | "evaluated";
