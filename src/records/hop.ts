import type { Proposal } from "../tools/proposal.js";
import type { DelegateTask } from "./delegate-task.js";
import type { Verdict } from "./verdict.js";

/**
 * Who made a proposal: a delegate backend, an `escalate_to` agent, a person's resolution, or a repair (a call a
 * plan repair proposes; see `CHECKS` in delegate/accept-gate.ts for what each must pass).
 */
export type ProposalSource = "delegate" | "agent" | "person" | "repair";

/** One tool call: a tool's name and its arguments (the call the gate accepted, a person's decided call). */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A call as proposed (by a delegate, an agent or a person), before the accept gate judged it. */
export type ProposedCall = Pick<Proposal, "name" | "confidence"> & Partial<Pick<Proposal, "arguments">>;

/** A call or a decline (`name: null`) without a score: a worked example's answer, a training label, a prediction. */
export type CallOrDecline = Pick<Proposal, "name" | "arguments">;

/**
 * Why a trust model's gate decided as it did: the proposal's raw confidence, the trust model's probability that
 * the call is right (`null`: it could not score the proposal) and the thresholds that probability was held to —
 * the trust model's own and the node's `min_confidence`, when it has one.
 */
export interface TrustReading {
  confidence: number | null;
  probability: number | null;
  threshold: number;
  minConfidence?: number;
}

/**
 * One judged proposal: the task it answered, the proposal (`null` when there was none), the verdict and who
 * proposed it. A trace is a hop plus its time and run coordinates (`DelegateTrace`).
 */
export interface Hop extends DelegateTask {
  proposal: Proposal | null;
  verdict: string;
  /** The call the gate accepted. */
  finalCall?: ToolCall;
  backend: string;
  latencyMs: number;
  /** `delegate` for a backend's proposal, `agent` for an escalate_to answer, `person` for a resolution, … */
  source?: ProposalSource;
  /** The backend's or the guard's error. */
  error?: { code: string; message: string };
  /** What the backend's trust model read, when the gate judged the proposal by one. */
  trust?: TrustReading;
}

/**
 * A hop in brief, as a unit's manifest `details.hops` and the `deputy:proposal` event show it: who proposed, the
 * gate's verdict, the proposal's confidence and its latency — no instruction, facts or arguments.
 */
export interface HopSummary extends Pick<Hop, "backend" | "latencyMs" | "trust"> {
  verdict: Verdict;
  source: ProposalSource;
  confidence: number | null;
}
