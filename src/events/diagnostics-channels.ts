import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { DelegationEvent, DelegationStartEvent, DelegationRefusedEvent } from "../agents/events.js";
import type { ProposalEvent } from "../delegate/proposal-channel.js";
import type { RunEvent } from "../plan/run-events.js";
import { CHANNELS, type ChannelName } from "../runtime/channels.js";

export { CHANNELS, type ChannelName };

/** Every diagnostics channel deputy publishes on, with the type of what it carries. */
export interface DiagnosticsEvents {
  /** plan: a run started or ended (also delivered to `onEvent`). */
  "deputy:run": Extract<RunEvent, { type: "run-start" | "run-end" }>;
  /** plan: a node started or ended, an item of a `for_each` node started or ended, an escalation opened. */
  "deputy:node": Extract<
    RunEvent,
    { type: "node-start" | "node-end" | "item-start" | "item-end" | "escalation-open" }
  >;
  /** delegate: one judged proposal (no instruction, facts or arguments). */
  "deputy:proposal": ProposalEvent;
  /** agents: a delegated call started. */
  "deputy:delegation-start": DelegationStartEvent;
  /** agents: a delegated call ended. */
  "deputy:delegation": DelegationEvent;
  /** agents: a budget or `maxDepth` refused a delegated call. */
  "deputy:delegation-refused": DelegationRefusedEvent;
}

// The list above and the names the publishers use are the same set (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const listed: Same<ChannelName, keyof DiagnosticsEvents> = true;

/** What publishes on each channel. */
export const DIAGNOSTICS_CHANNELS: readonly {
  name: keyof DiagnosticsEvents;
  part: "plan" | "delegate" | "agents";
}[] = listed && [
  { name: CHANNELS.run, part: "plan" },
  { name: CHANNELS.node, part: "plan" },
  { name: CHANNELS.proposal, part: "delegate" },
  { name: CHANNELS.delegationStart, part: "agents" },
  { name: CHANNELS.delegation, part: "agents" },
  { name: CHANNELS.delegationRefused, part: "agents" },
];

/**
 * Subscribes to one of deputy's diagnostics channels with its payload typed. Listeners cannot fail the work
 * that publishes. Returns a function that unsubscribes.
 *
 * @example
 * const stop = onDiagnostics("deputy:proposal", (e) => console.log(e.nodeId, e.verdict));
 */
export function onDiagnostics<N extends keyof DiagnosticsEvents>(
  name: N,
  listener: (event: DiagnosticsEvents[N]) => void,
): () => void {
  const fn = (message: unknown) => {
    try {
      listener(message as DiagnosticsEvents[N]);
    } catch {
      // A listener's failure must not reach the run, the proposal or the call that published.
    }
  };
  subscribe(name, fn);
  return () => unsubscribe(name, fn);
}
