import type { ToolSpec } from "../tools/tool-spec.js";
import type { DelegateTask, RunCoordinates } from "./delegate-task.js";
import type { ProposedCall, ToolCall } from "./hop.js";
import type { Spend } from "./spend.js";
import type { Judgement } from "./verdict.js";

// An escalation, declared once below every layer that carries it: the question a rejected delegate proposal
// puts (to an `escalate_to` agent through the host's handler, to a person through the store), the answers to it
// (an agent's call, a person's resolution) and the record the store keeps of it.

/**
 * What an escalation asks: the delegate's task, and why its proposal was rejected — the gate's verdict that
 * caused it (`low_confidence`, `declined`, …; a stored one may be another version's) and its reason — with the
 * proposal.
 */
export interface EscalationQuestion extends DelegateTask, Judgement<string> {
  /** The rejected proposal, when there was one. */
  proposal: ProposedCall | undefined;
}

/**
 * An escalation as a handler is asked it (`escalate_to`): the question, the agent named to decide, the unit it
 * is for and the run's signal. `Unit` is the engine's `WorkUnit`, named where the engine's types are known
 * (delegate/ adds the node and the proposal schema; agents/ reads this much).
 */
export interface EscalationRequest<Unit> extends EscalationQuestion {
  /** The node's `escalate_to` (a registered agent's name). */
  agent: string;
  unit: Unit;
  signal: AbortSignal;
}

/** A handler's answer to an {@link EscalationRequest}: a call, or a decline (`name: null`). */
export interface EscalationAnswer {
  name: string | null;
  arguments?: Record<string, unknown>;
  /** The arguments as the agent wrote them, when they are not a JSON object (the gate judges `invalid_args`). */
  unparsedArguments?: string;
  /** Shown in traces as the backend. Default `agent:<name>`. */
  backend?: string;
  /** What deciding spent (summed per node in the manifest). */
  spend?: Spend;
}

/**
 * What a person (or an agent) decided about an escalation, the stored answer: a delegate's escalation is decided
 * by `call`, `value` or `skip`; an approval escalation (`Escalation.kind: "approval"`) by `approve` (run the call
 * shown) or `reject` (never run it; the unit fails with `TOOL_CALL_REJECTED` and the reason).
 */
export type Resolution = (
  | { kind: "call"; call: ToolCall }
  | { kind: "value"; value: unknown }
  | { kind: "skip" }
  | { kind: "approve" }
  | { kind: "reject"; reason?: string }
) & {
  /** Who decided: the name a person gave (`deputy resolve --by`, the console). Absent: an unnamed person. */
  by?: string;
};

/**
 * A candidate tool as an escalation keeps it (the delegate's `ToolSpec`). The run's redactor sees the whole
 * record, so the schema of a property with a secret-looking name (`password`) is stored redacted, as in traces.
 */
export type EscalationTool = Omit<ToolSpec, "parameters"> & { parameters: unknown };

/**
 * A node or item paused for a decision, as the store keeps it. It describes itself: the question as the unit
 * rendered it (so the person deciding — the console, the CLI — and the learner, `deputy distill --store`, read it
 * from here, never by rendering the plan again), where it paused, when, the node's gate settings and, once
 * decided, the resolution. Instruction and values are redacted like the rest of the record. Escalations stored
 * before the question was kept have no `instruction`, `facts` or `tools`; readers show what they can without.
 */
export interface Escalation
  extends
    Omit<RunCoordinates, "runId">,
    Pick<EscalationQuestion, "verdict" | "reason">,
    Partial<Pick<EscalationQuestion, "instruction" | "facts">> {
  /**
   * What it waits for. Absent: a decision about a delegate's proposal (`call`, `value` or `skip`; its `verdict` the
   * gate's). `approval`: a person's yes or no to the exact call in {@link Escalation.call}, which requires approval
   * (its tool's `needsApproval`, a trusted MCP server's `destructiveHint`, or the tool node's `require_approval`);
   * its `verdict` is `approval_required`.
   */
  kind?: "approval";
  /** For an approval: the call that waits, as it will run (arguments redacted like the rest of the record). */
  call?: ToolCall;
  /** The rejected proposal as the unit recorded it: its call (arguments redacted) and backend. */
  proposal?: unknown;
  createdAt: string;
  resolution?: Resolution;
  /** The candidate tools as the delegate saw them, with the schema a decision's call must fit. */
  tools?: EscalationTool[];
  /** The node's `min_confidence`, when it set one. */
  minConfidence?: number;
  /** The node's `allow_side_effects`. */
  allowSideEffects?: boolean;
}
