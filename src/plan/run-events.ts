import { channel } from "node:diagnostics_channel";
import type { SerializedError } from "../errors/deputy-error.js";
import { CHANNELS } from "../runtime/channels.js";
import type { RunCoordinates } from "../records/delegate-task.js";
import type { Judgement } from "../records/verdict.js";
import type { NodeStatus, RunStatus, Spend } from "../store/run-state.js";

/**
 * Events of a run, named noun-verb (see docs/architecture.md). `seq` numbers them within the run, from 1, across
 * its resumes (a resume goes on after the number its last run ended with), so a watcher sees whether any is
 * missing or repeated.
 */
export type RunEvent = { seq: number } & (
  | { type: "run-start"; runId: string; plan: string; nodes: number; resumed: boolean }
  | { type: "run-end"; runId: string; status: RunStatus; durationMs: number; error?: SerializedError }
  | { type: "node-start"; runId: string; nodeId: string; items?: number }
  | {
      type: "node-end";
      runId: string;
      nodeId: string;
      status: NodeStatus;
      durationMs: number;
      /** The node's error (redacted as its record is). */
      error?: SerializedError;
      /** What the node spent, summed over its items (as its node type reads it: `NodeType.spend`). */
      spend?: Spend;
      /** Set when the node's result came from the cache (a tool node's `cache`): no tool was called. */
      cached?: true;
    }
  /** A `for_each` item was handed to its node type (an item reused from an earlier attempt has none). */
  | { type: "item-start"; runId: string; nodeId: string; index: number }
  | {
      type: "item-end";
      runId: string;
      nodeId: string;
      index: number;
      status: string;
      done: number;
      total: number;
      /** What the item spent, when its node type reports spend. */
      spend?: Spend;
      /** Set when the item's result came from the cache (a tool node's `cache`): no tool was called. */
      cached?: true;
    }
  /** A node or item paused for a decision (`deputy resolve`, the console); once per escalation, not per resume. */
  /** (`verdict`: the gate's verdict that caused it; `reason` redacted as the stored escalation is.) */
  | ({ type: "escalation-open" } & RunCoordinates & Judgement<string>)
);

/** A run event as the engine builds it, before the emitter numbers it. */
export type UnnumberedRunEvent = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "seq">
    : never
  : never;

/**
 * The numbers of one run's events. The engine numbers its own with it; a caller that adds events of the run from
 * elsewhere into the same stream (compose/'s watcher adds the delegate's `proposal-end`s) takes numbers from the
 * same object, so the whole stream counts up by one. A resume sets `last` from the run's record before its first
 * event.
 */
export class EventSequence {
  /** The number of the last event handed out (0: none yet). */
  last = 0;
  next(): number {
    return ++this.last;
  }
}

/** `deputy:run` and `deputy:node` on node:diagnostics_channel carry the same events as `onEvent`. */
export const runChannel = channel(CHANNELS.run);
export const nodeChannel = channel(CHANNELS.node);

/** Emits a run's events; `active()` tells whether anyone listens (hot paths skip building events if not). */
export interface Emitter {
  (event: UnnumberedRunEvent): void;
  active(): boolean;
  readonly sequence: EventSequence;
}

/** Makes the emitter of one run: cheap when nobody listens. */
export function createEmitter(
  onEvent?: (event: RunEvent) => void,
  sequence: EventSequence = new EventSequence(),
): Emitter {
  const emit = (unnumbered: UnnumberedRunEvent) => {
    const event = unnumbered as RunEvent;
    event.seq = sequence.next();
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
  return Object.assign(emit, { onEvent, active, sequence });
}

function active(this: { onEvent?: unknown }): boolean {
  return this.onEvent !== undefined || nodeChannel.hasSubscribers;
}
