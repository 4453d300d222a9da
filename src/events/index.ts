/// <reference types="node" preserve="true" />
/**
 * deputy's diagnostics: the one list of `node:diagnostics_channel` channels with their payloads, and the
 * OpenTelemetry bridge over all of them: `deputy-js/events`, also re-exported by the root entry `deputy`.
 *
 * @packageDocumentation
 */
export {
  CHANNELS,
  DIAGNOSTICS_CHANNELS,
  onDiagnostics,
  type ChannelName,
  type DiagnosticsEvents,
} from "./diagnostics-channels.js";
export { enableOpenTelemetry, type OpenTelemetryBridgeOptions } from "./otel-bridge.js";
