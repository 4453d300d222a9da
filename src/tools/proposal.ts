// The shape of a proposed tool call, beside ToolSpec (what a model sees of a tool): the delegate protocol
// returns it and traces record it, so it sits below both (see docs/architecture.md).

/** Token usage of one proposal, when the backend reports it. */
export interface ProposalUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Prompt tokens served from the backend's prefix cache. */
  cachedInputTokens?: number;
}

/** What a delegate backend proposes: one tool call, or a decline (`name: null`). */
export interface Proposal {
  name: string | null;
  arguments: Record<string, unknown>;
  /**
   * Probability of the chosen tool (or of declining), normalised over the candidates; `null` when the backend
   * cannot measure it. Never a made-up number.
   */
  confidence: number | null;
  /**
   * Mean probability of the generated tokens under the model's raw distribution (no grammar, temperature 1):
   * the score some systems gate on, measured only for comparison with `confidence` (see docs/quality.md) and
   * only when the backend was asked to (`tokenProbability: true`). Never used by the gate.
   */
  meanTokenProbability?: number;
  /** Name of the backend that made it. */
  backend: string;
  latencyMs: number;
  usage?: ProposalUsage;
  /** The model's raw answer, for traces when it could not be parsed. */
  raw?: string;
  /**
   * When the prompt carried worked examples (deputy-js/distill's `withExamples`): each one's similarity to the
   * task, most similar first. Traced, so a run shows what the model was shown.
   */
  examples?: number[];
}
