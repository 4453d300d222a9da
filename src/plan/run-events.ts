import { channel } from "node:diagnostics_channel";
import { CHANNELS } from "../runtime/channels.js";
import type { NodeStatus, RunStatus } from "../store/run-state.js";

/** Events of a run, named noun-verb (see docs/architecture.md). */
export type RunEvent =
  | { type: "run-start"; runId: string; plan: string; nodes: number; resumed: boolean }
  | { type: "run-end"; runId: string; status: RunStatus; durationMs: number }
  | { type: "node-start"; runId: string; nodeId: string; items?: number }
  | {
      type: "node-end";
      runId: string;
      nodeId: string;
      status: NodeStatus;
      durationMs: number;
      /** Set when the node's result came from the cache (a tool node's `cache`): no tool was called. */
      cached?: true;
    }
  | {
      type: "item-end";
      runId: string;
      nodeId: string;
      index: number;
      status: string;
      done: number;
      total: number;
      /** Set when the item's result came from the cache (a tool node's `cache`): no tool was called. */
      cached?: true;
    };

/** `deputy:run` and `deputy:node` on node:diagnostics_channel carry the same events as `onEvent`. */
export const runChannel = channel(CHANNELS.run);
export const nodeChannel = channel(CHANNELS.node);

/** Emits a run's events; `active()` tells whether anyone listens (hot paths skip building events if not). */
export interface Emitter {
  (event: RunEvent): void;
  active(): boolean;
}

/** Makes the emitter of one run: cheap when nobody listens. */
export function createEmitter(onEvent?: (event: RunEvent) => void): Emitter {
  const emit = (event: RunEvent) => {
    if (onEvent) {
      try {
        onEvent(event);
      } catch {
        // A listener's failure must not fail the run.
      }
    }
    const ch = event.type === "run-start" || event.type === "run-end" ? runChannel : nodeChannel;
    if (ch.hasSubscribers) ch.publish(event);
  };
  // One `active` for every run (a method reading its emitter), not a closure per run: the for_each hot path calls
  // it per item, and code optimised for one run's closure would be thrown away by the next run's.
  return Object.assign(emit, { onEvent, active });
}

function active(this: { onEvent?: unknown }): boolean {
  return this.onEvent !== undefined || nodeChannel.hasSubscribers;
}
