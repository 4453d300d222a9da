// The shape of a proposed tool call, beside ToolSpec (what a model sees of a tool): the delegate protocol
// returns it and traces record it, so it sits below both (see docs/architecture.md).

/** Token usage of one proposal, when the backend reports it. */
export interface ProposalUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Prompt tokens served from the backend's prefix cache. */
  cachedInputTokens?: number;
}

/** The relevance of a task to its candidate tools, as a proposal records it (and its trace with it). */
export interface ProposalRelevance {
  /** Cosine similarity of the task to the nearest candidate tool in the encoder's space (-1–1). */
  score: number;
  /** The step declines below this. */
  threshold: number;
  /** The nearest candidate tool. */
  tool: string;
  /**
   * Set when the step declined a call after it was made: the task was only weakly relevant (score below
   * `below`) and the backend's confidence under `minConfidence`. `declined` is the tool the backend chose and
   * `confidence` its confidence in that call.
   */
  weak?: { below: number; minConfidence: number; declined: string; confidence: number };
  /**
   * Set when the task scored below `threshold` and the step still asked the backend (`sure`): the call stands
   * when it is `grounded` (every argument value spelled out in the task) or its `confidence` is at least `sure`;
   * otherwise it was declined and `declined` is the tool the backend chose.
   */
  asked?: { sure: number; grounded: boolean; confidence: number | null; declined?: string };
}

/** The self-check of a call (LocalDelegate's `selfCheck`), as a proposal records it (and its trace with it). */
export interface ProposalSelfCheck {
  /** The model's own P(yes) / (P(yes) + P(no)) that the call does what the task asks (0–1). */
  score: number;
  /** The check declines below this. */
  threshold: number;
  /** The call's confidence before the check: `confidence` is it times `score` when the call stands. */
  callConfidence: number | null;
  /** Set when the check declined the call: the tool the backend chose. */
  declined?: string;
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
  /**
   * The task's relevance to the candidate tools, when a relevance step scored it (`RelevanceDelegate`): a
   * decline with a score below its threshold was the step's, not the model's.
   */
  relevance?: ProposalRelevance;
  /** The call's self-check, when the backend ran one: a decline that has it was the check's, not the model's. */
  selfCheck?: ProposalSelfCheck;
  /** Name of the backend that made it. */
  backend: string;
  /**
   * Set when no model was asked: the proposal was reused from the proposal cache (`CachedDelegate`) for the same
   * rendered task, candidate tools, model and options. `latencyMs` is then the lookup's, and there is no `usage`.
   */
  cached?: true;
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
