import type { JsonSchema } from "../schema/json-schema.js";

import type { Proposal, ProposalRelevance, ProposalSelfCheck, ProposalUsage } from "../tools/proposal.js";
import type { DelegateTask, RunCoordinates } from "../records/delegate-task.js";
import type { ToolSpec } from "../tools/tool-spec.js";
import type { WorkedExample } from "../runtime/tool-call-prompt.js";

export type { Proposal, ProposalRelevance, ProposalSelfCheck, ProposalUsage, ToolSpec, WorkedExample };

/** What a backend is asked. */
export interface ProposeRequest extends DelegateTask {
  /**
   * Past decisions to show the model as worked examples, most similar first (deputy-js/distill's
   * `withExamples` sets them). Backends that prompt a model send them as prior exchanges; others ignore them.
   */
  examples?: WorkedExample[];
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

/** The unit a proposal is made for (`item`: the for_each item index, when the node has one). */
export type ProposeContext = RunCoordinates;

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
  /**
   * What makes its proposals repeatable, when they are: a digest of the model and of every option that changes
   * a proposal, present only when decoding is deterministic (greedy, or a fixed seed), so the same request always
   * gets the same proposal. Then `CachedDelegate` may reuse one (the gate still judges it). `undefined` (the
   * default): its proposals may differ for the same request, and are never cached.
   */
  readonly cacheIdentity?: string | undefined;
  /** Frees what the backend holds. Idempotent. */
  close(): Promise<void>;
  /** Reports a proposal schema the backend cannot enforce (checked at validation time, not mid-run). */
  checkSchema?(schema: JsonSchema): string | undefined;
  /**
   * The level's trust model (`withTrust`, the `trust=FILE` spec option): when set, a delegate node's gate judges
   * this backend's proposals by its probability and threshold instead of their raw confidence.
   */
  readonly trust?: ProposalTrust;
}

/**
 * What a level's proposal says about itself and its neighbours, the inputs of a trust model. Start with what
 * every level has (its answer confidence) and what a chain gives (the level before); the rest where a level
 * provides it.
 */
export interface TrustSignals {
  /** The level's answer confidence (0–1); `null` when the backend gave none. */
  confidence: number | null;
  /** Whether the level before proposed the same call (tool and arguments); absent at the first level. */
  agreesWithPrevious?: boolean;
  /** Similarity (−1–1) of the task to its nearest past decision, when the level was shown examples (`examples[0]`). */
  nearestSimilarity?: number;
}

/**
 * A level's trust model as the accept gate uses it: a calibrated probability that a proposal is right, from its
 * signals, and the smallest probability it accepts (deputy-js/distill's `TrustModel`, loaded from a
 * `trust=FILE` spec option).
 */
export interface ProposalTrust {
  /** The smallest probability the model accepts (chosen out of fold for a target precision). */
  readonly threshold: number;
  /** The probability that the call is right; `null` when a signal it reads is missing or out of range. */
  probability(signals: TrustSignals): number | null;
}
