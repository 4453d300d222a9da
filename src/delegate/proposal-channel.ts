import { channel } from "node:diagnostics_channel";
import { CHANNELS } from "../runtime/channels.js";
import type { Verdict } from "./accept-gate.js";

/**
 * One proposal hop, as published on `deputy:proposal` (node:diagnostics_channel). Deliberately small and free of
 * instruction, facts and arguments (those go, redacted, to a trace sink): safe to log or turn into spans.
 */
export interface ProposalEvent {
  type: "proposal-end";
  runId: string;
  nodeId: string;
  item?: number;
  /** The backend's name (`person` for a resolution, `agent:<name>` for an escalate_to agent). */
  backend: string;
  /** Who proposed: a delegate backend, an `escalate_to` agent or a person. */
  source: "delegate" | "agent" | "person";
  verdict: Verdict;
  /** The proposed tool, when one was named. */
  tool?: string;
  confidence: number | null;
  latencyMs: number;
  /** Set when the proposal was reused from the proposal cache: no model was asked. */
  cached?: true;
}

/** `deputy:proposal`: every proposal hop of every delegate node, with its verdict. */
export const proposalChannel = channel(CHANNELS.proposal);
