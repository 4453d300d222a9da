import type { JsonSchema } from "../schema/json-schema.js";

import type { ToolSpec } from "../tools/tool-spec.js";

export type { ToolSpec };

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
}

/** What a backend is asked. */
export interface ProposeRequest {
  instruction: string;
  facts: Record<string, unknown>;
  tools: ToolSpec[];
  /**
   * The proposal schema for these tools (see `buildProposalSchema`); backends constrain decoding with it.
   * The engine passes the one it built for the node; when absent, a backend builds it from `tools`.
   */
  schema?: JsonSchema;
  signal?: AbortSignal;
  /**
   * Which unit the proposal is for. The engine always sets it; real models ignore it, and replaying backends
   * (`ScriptedDelegate`) use it to pick the answer for a node and item.
   */
  context?: ProposeContext;
}

/** The unit a proposal is made for. */
export interface ProposeContext {
  runId: string;
  nodeId: string;
  /** The for_each item index, when the node has one. */
  item?: number;
}

/**
 * A delegate backend: a small model that proposes exactly one tool call. Implementations throw
 * `DelegateBackendError` when they cannot answer (connection, timeout, unparseable output); the engine turns
 * that into the `backend_error` verdict.
 */
export interface ToolCallDelegate {
  readonly name: string;
  /** Most candidate tools it accepts in one proposal. */
  readonly maxTools: number;
  /** Most characters of instruction + facts (as sorted JSON) it accepts; longer input is never truncated. */
  readonly maxInputChars: number;
  propose(request: ProposeRequest): Promise<Proposal>;
  /** Frees what the backend holds. Idempotent. */
  close(): Promise<void>;
  /** Reports a proposal schema the backend cannot enforce (checked at validation time, not mid-run). */
  checkSchema?(schema: JsonSchema): string | undefined;
}
