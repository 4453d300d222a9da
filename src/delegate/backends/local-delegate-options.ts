import type { ConfidenceMethod } from "../../confidence/answer-confidence.js";
import type { GpuOption } from "./gpu-option.js";
import type { DecodeStats, PrefixSource } from "./local-decode-info.js";

/** Options of {@link LocalDelegate}. */
export interface LocalDelegateOptions {
  /** A GGUF path, or a model URI (`hf:user/repo/file.gguf`, `https://…`) resolved by node-llama-cpp. */
  model: string;
  /** Backend name in proposals and traces. Default `"local"`. */
  name?: string;
  /** Context sequences, i.e. proposals decoded at once (concurrent proposals share batches). Default 1. */
  poolSize?: number;
  /** CPU threads. Default 1 (measured fastest for small models on a 2-core machine; see bench/delegate.ts). */
  threads?: number;
  /** Context size of each sequence, in tokens. Default 8192. */
  contextSize?: number;
  /** Most characters of instruction + facts. Default 1000. */
  maxInputChars?: number;
  /** Most candidate tools. Default 5. */
  maxTools?: number;
  /** Most generated tokens per proposal; an answer cut off there is a backend error. Default 512. */
  maxOutputTokens?: number;
  /** Sampling temperature; 0 (the default) is greedy and deterministic. */
  temperature?: number;
  /** Sampling seed (only used when temperature > 0). */
  seed?: number;
  /** GPU backend for node-llama-cpp. Default `false` (CPU). */
  gpu?: GpuOption;
  /** Where model URIs download to (node-llama-cpp's default models folder when unset). */
  modelsDirectory?: string;
  /** Measure a confidence for each proposal (else `confidence` is null). Default true. */
  confidence?: boolean;
  /**
   * How confidence is measured (see docs/quality.md): `"answer"` — the joint probability of the answer's value
   * tokens (tool name or decline, argument values), read from the generation's own steps when greedy (else
   * re-read in one batch after the answer); `"choice"` — the probability of the chosen tool among the
   * candidates only (a few extra tokens of evaluation). Default `"answer"`.
   */
  confidenceMethod?: ConfidenceMethod;
  /**
   * Also measure the mean raw probability of the generated tokens (`meanTokenProbability`; free when greedy,
   * else one extra batch per proposal), for comparing scores in evaluations. Default false.
   */
  tokenProbability?: boolean;
  /**
   * Decline when the model's own probability of declining, at the answer's choice point (`null` against a tool
   * name, after `{"name":`), is at least this — even when a tool name is likelier. Under the grammar a small
   * model gives the decline a real but minority share, larger on questions no tool fits; where the two overlap
   * depends on the model, so the threshold is measured per model (docs/quality.md, "Declining": 0.05–0.1 for
   * Qwen2.5-Coder-1.5B; no value keeps the 0.5B's calls). Read from the decoding step itself, at no extra
   * evaluation; applies with greedy decoding (`temperature` 0). Default `false`: the likeliest token decides.
   */
  declineThreshold?: number | false;
  /**
   * Jump-forward decoding: after each step, append to its batch the two tokens the model will most likely write
   * next — where the answer repeats the structure of the answer before it (keys, quotes, separators, split the
   * way the model splits them) or text of the prompt (an alert's id, a task's words copied into a summary), or
   * else where the grammar forces the next characters — and check each against the model's own pick at its
   * position, keeping it only where they agree. The answer and its confidence are those of step-by-step
   * decoding bit for bit (llama.cpp's CPU kernels compute a batch of up to 3 tokens exactly like single steps;
   * local-generation.ts), in fewer, cheaper batches: on the alert-triage fan-out, Qwen2.5-Coder-0.5B 44 → 22
   * batches and 6–14 % less CPU a proposal on an idle machine (bench/RESULTS.md, "Drafts from the answer
   * before and the prompt"). Applies with greedy decoding. Default true with one sequence (`poolSize` 1) and
   * false with more: their steps share batches, which drafts would push past three tokens. On a GPU backend,
   * whose kernels may round a batch of 3 unlike single steps, measure before relying on bit-for-bit equality.
   */
  jumpForward?: boolean;
  /**
   * The self-check after a call: the model is asked, in a second short prompt of its own sequence, whether the
   * call does what the task asks (yes or no); below this share of yes the call becomes a decline, and otherwise
   * its confidence is multiplied by that share (local-self-check.ts). It catches near-miss questions the call's
   * confidence misses — measured in docs/quality.md ("Self-check") — at the cost of one more prompt of about
   * 100–200 tokens per call. Default `false`.
   */
  selfCheck?: number | false;
  /**
   * With `poolSize` > 1: evaluate the prompt's shared prefix (template, rules, tools) once and copy its state
   * into the other sequences, instead of each sequence evaluating it on its first proposal
   * (local-shared-prefix.ts). Default true.
   */
  sharePrefix?: boolean;
  /** @internal Test hooks. */
  _internal?: {
    /**
     * Decode every token of the answer, not stopping once it is decided (a decline's `null`, or only closing
     * brackets left; local-generation.ts). Default false: the same call and confidence in fewer steps.
     */
    decodeWholeAnswer?: boolean;
    /**
     * Append the answer's opening (`{"name":` as the previous answer wrote it) to the prompt's batch, checked
     * like a draft (local-draft.ts). Default true with one sequence (`poolSize` 1), false with more (a pool's
     * proposals start together, so which answer came before would depend on timing); false decodes it in a
     * batch of its own.
     */
    openingInPromptBatch?: boolean;
    /** Per proposal: how it was decoded and how much of its prompt was shared (counts, no times). */
    onDecode?: (info: LocalDecodeInfo) => void;
    /** The decline's probability at the choice point (undefined when it was not read). */
    onDeclineProbability?: (probability: number | undefined) => void;
    onChoiceDistribution?: (distribution: Map<string | null, number>) => void;
    /** Per generated token: its text, its probability under the grammar, and (with tokenProbability) its raw one. */
    onTokens?: (tokens: { piece: string; grammar: number; raw?: number }[]) => void;
  };
}

/** What one proposal's decoding took, for benchmarks and tests (`_internal.onDecode`). */
export interface LocalDecodeInfo extends DecodeStats {
  /** Prompt tokens every proposal with these tools shares (template, rules, tools, decline). */
  sharedPromptTokens: number;
  /** Prompt tokens in all. */
  promptTokens: number;
  /** Prompt tokens served from the sequence's state (not evaluated for this proposal). */
  reusedPromptTokens: number;
  /** How the sequence came to hold the shared prefix (pool > 1 with `sharePrefix`; else "held"). */
  prefix: PrefixSource;
  /** The generated tokens' texts. */
  pieces: string[];
}
