/**
 * The name of every `node:diagnostics_channel` deputy publishes on, by the part that publishes it. The payload
 * of each is listed with it in the root entry's `DiagnosticsEvents`; the OpenTelemetry bridge covers them all.
 */
export const CHANNELS = Object.freeze({
  /** plan: `run-start`, `run-end` of every run. */
  run: "deputy:run",
  /** plan: `node-start`, `node-end`, `item-end`. */
  node: "deputy:node",
  /** delegate: every judged proposal (delegate nodes, escalations, the router tool). */
  proposal: "deputy:proposal",
  /** agents: a delegated call started (after its arguments and budgets cleared). */
  delegationStart: "deputy:delegation-start",
  /** agents: a delegated call ended (also for `invalid_arguments`). */
  delegation: "deputy:delegation",
  /** agents: a budget or `maxDepth` refused a delegated call. */
  delegationRefused: "deputy:delegation-refused",
} as const);

/** Any of deputy's diagnostics channel names. */
export type ChannelName = (typeof CHANNELS)[keyof typeof CHANNELS];
