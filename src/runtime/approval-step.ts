import type { SerializedError } from "../errors/deputy-error.js";
import type { Escalation } from "../records/escalation.js";
import type { ToolCall } from "../records/hop.js";
import type { Tool } from "../tools/define-tool.js";
import { approvalReason, isApprovedCall } from "../tools/tool-approval.js";
import type { DispatchUnit } from "./dispatch-tool.js";
import { REDACTED, ValueRedactor } from "./redact-value.js";

// The approval step every executor that calls a tool shares (tool nodes, a delegate's accepted call): ask whether
// the call waits for a person, pause it as an escalation of kind "approval", and read the person's decision on
// resume. It lives in runtime/ so the engine's tool node and delegate/ use one step; its shapes are the
// escalation's own (records/ sits below runtime/).

/** A tool call as an approval shows it and the run makes it. */
export type ApprovalCall = ToolCall;

/**
 * What a unit pauses with when its call needs approval: an `Escalation` of kind `approval`, less the run
 * coordinates — its `call` as it will run, sensitive arguments and secret-looking keys redacted (the run's
 * redactor adds more).
 */
export interface ApprovalEscalation extends Required<Pick<Escalation, "kind" | "call" | "reason">> {
  verdict: "approval_required";
}

/** What a resumed unit was told about its approval. */
export type ApprovalOutcome =
  /** Run the call now; `details` say who approved it. */
  | { decision: "approved"; details: Record<string, unknown> }
  /** Never run it: the unit fails with `error`. */
  | { decision: "rejected"; error: SerializedError; details: Record<string, unknown> }
  /** No approval decision for this call: ask (again). */
  | { decision: "none" };

const argumentRedactor = new ValueRedactor({ secretValues: false });

/**
 * The escalation to pause with when this call of `tool` needs a person's approval (`required`: the node asks for
 * it), else `undefined`. The tool's `needsApproval` function, if any, is asked with the call's arguments.
 */
export async function approvalNeeded(
  tool: Tool,
  args: Record<string, unknown>,
  unit: DispatchUnit,
  required = false,
): Promise<ApprovalEscalation | undefined> {
  const idempotencyKey =
    unit.itemIndex === undefined
      ? `${unit.runId}/${unit.nodeId}`
      : `${unit.runId}/${unit.nodeId}/${unit.itemIndex}`;
  const reason = await approvalReason(
    tool,
    args,
    {
      signal: unit.signal,
      idempotencyKey,
      runId: unit.runId,
      nodeId: unit.nodeId,
      ...(unit.itemIndex === undefined ? {} : { itemIndex: unit.itemIndex }),
    },
    required,
  );
  if (reason === undefined) return undefined;
  return {
    kind: "approval",
    verdict: "approval_required",
    reason,
    call: {
      name: tool.name,
      arguments: argumentRedactor.redactValue(args, tool.sensitive) as Record<string, unknown>,
    },
  };
}

/**
 * What a person decided about the approval this unit escalated with, for the call it is about to make now:
 * `approved` only when the earlier escalation was an approval of this same call (see `isApprovedCall`), and
 * `rejected` whatever the call; `none` otherwise (no approval asked, none decided yet, or another call).
 */
export function approvalDecided(
  escalation: { kind?: string; call?: ApprovalCall } | undefined,
  resolution: { kind: string; by?: string; reason?: string } | undefined,
  now: ApprovalCall,
): ApprovalOutcome {
  if (escalation?.kind !== "approval" || !resolution) return { decision: "none" };
  const by = resolution.by ? { decidedBy: resolution.by } : {};
  if (resolution.kind === "reject") {
    const why = resolution.reason ? { reason: resolution.reason } : {};
    return {
      decision: "rejected",
      error: {
        code: "TOOL_CALL_REJECTED",
        message: `A person${resolution.by ? ` (${resolution.by})` : ""} rejected the call of "${now.name}"${resolution.reason ? `: ${resolution.reason}` : ""}.`,
        details: { tool: now.name, ...by, ...why },
      },
      details: { approval: "rejected", ...by, ...why },
    };
  }
  if (resolution.kind === "approve" && isApprovedCall(escalation.call, now, REDACTED)) {
    return { decision: "approved", details: { approval: "approved", ...by } };
  }
  return { decision: "none" };
}
