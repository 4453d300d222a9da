import { channel } from "node:diagnostics_channel";
import { CHANNELS } from "../runtime/channels.js";
import type { RunCoordinates } from "../records/delegate-task.js";
import type { HopSummary } from "../records/hop.js";

/**
 * One proposal hop, as published on `deputy:proposal` (node:diagnostics_channel): the hop's summary (backend —
 * `person` for a resolution, `agent:<name>` for an escalate_to agent —, source, verdict, confidence, latency) at
 * its run coordinates, and the proposed tool. Deliberately small and free of instruction, facts and arguments
 * (those go, redacted, to a trace sink): safe to log or turn into spans.
 */
export interface ProposalEvent extends RunCoordinates, HopSummary {
  type: "proposal-end";
  /** The proposed tool, when one was named. */
  tool?: string;
  /** Set when the proposal was reused from the proposal cache: no model was asked. */
  cached?: true;
}

/** `deputy:proposal`: every proposal hop of every delegate node, with its verdict. */
export const proposalChannel = channel(CHANNELS.proposal);
