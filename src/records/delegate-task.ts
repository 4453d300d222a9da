import type { ToolSpec } from "../tools/tool-spec.js";

// What a delegate is asked, declared once below every layer that carries it: a backend's request, an
// escalate_to agent's request, an escalation and a trace all hold this same task.

/** One delegate task as a unit rendered it: the instruction, the facts it works on and the candidate tools. */
export interface DelegateTask {
  /** The node's instruction, rendered with the unit's scope. */
  instruction: string;
  /** The node's facts, rendered with the unit's scope. */
  facts: Record<string, unknown>;
  /** The candidate tools as the delegate sees them. */
  tools: ToolSpec[];
}

/** The unit a record is about: its run, its node and, in a `for_each`, its item. */
export interface RunCoordinates {
  runId: string;
  nodeId: string;
  /** The for_each item index, when the node has one. */
  item?: number;
}
