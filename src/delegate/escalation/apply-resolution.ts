import type { UnitOutcome } from "../../plan/node-executor.js";
import type { Resolution } from "../../records/escalation.js";
import { approvalDecided } from "../../runtime/approval-step.js";
import { REDACTED } from "../../runtime/redact-value.js";
import type { GateResult } from "../accept-gate.js";
import type { DelegateUnit } from "../delegate-unit.js";
import type { Proposal } from "../protocol.js";

/**
 * Applies a person's decision about an earlier escalation: `value` → ok with that value, `skip` → skipped,
 * `call` → the gate's tool, schema and side-effect checks (no confidence, no guard), then dispatch. A call the gate
 * rejects escalates again with the new verdict, so the person can correct it and resume.
 */
export async function applyResolution(p: DelegateUnit, resolution: Resolution): Promise<UnitOutcome> {
  // Who decided rides in the manifest's details (`decidedBy`) and in the trace's backend (`person:NAME`).
  const by = resolution.by ? { decidedBy: resolution.by } : {};
  const backend = resolution.by ? `person:${resolution.by}` : "person";
  switch (resolution.kind) {
    case "value":
      return {
        status: "ok",
        value: resolution.value,
        details: { verdict: "resolved", resolvedBy: "person", ...by, resolution: "value" },
      };
    case "skip":
      return {
        status: "skipped",
        details: { verdict: "resolved", resolvedBy: "person", ...by, resolution: "skip" },
      };
    case "call": {
      const proposal: Proposal = {
        name: resolution.call.name,
        arguments: resolution.call.arguments ?? {},
        confidence: null,
        backend,
        latencyMs: 0,
      };
      const gate = await p.judge("person", backend, proposal, 0);
      if (gate.verdict === "accepted") {
        const outcome = await p.dispatch(gate, proposal, "person");
        return { ...outcome, details: { ...outcome.details, ...by } };
      }
      // A bad call pauses again rather than failing the run: the person can correct it and resume.
      return p.escalated(gate, proposal, `the resolution's call was rejected: ${gate.reason}`);
    }
    case "approve":
    case "reject":
      return applyApproval(p, resolution, backend);
  }
}

/**
 * A person's yes or no to the delegate's accepted call that waited for approval. `reject`: the call never runs
 * and the unit fails (`TOOL_CALL_REJECTED`, with the reason). `approve`: the call shown is judged again as a
 * person's call (the tool, schema and side-effect checks; traced as the person's hop) and dispatched. A call the
 * store kept with redacted values cannot be replayed as approved: it pauses again for a full call.
 */
async function applyApproval(p: DelegateUnit, resolution: Resolution, backend: string): Promise<UnitOutcome> {
  const escalation = p.unit.escalation;
  const shown = escalation?.call;
  if (escalation?.kind !== "approval" || !shown) {
    return p.failure({
      code: "RESOLUTION_INVALID",
      message: `An ${resolution.kind} decides an approval, and this unit was not waiting for one.`,
    });
  }
  const decided = approvalDecided(escalation, resolution, shown);
  if (decided.decision === "rejected") {
    return {
      status: "error",
      error: decided.error,
      details: { verdict: "resolved", resolvedBy: "person", resolution: "reject", ...decided.details },
    };
  }
  const proposal: Proposal = {
    name: shown.name,
    arguments: shown.arguments,
    confidence: null,
    backend,
    latencyMs: 0,
  };
  if (JSON.stringify(shown.arguments).includes(REDACTED)) {
    const gate: GateResult = { verdict: "accepted", reason: "approved" };
    const again = p.escalated(
      gate,
      proposal,
      "the approved call was stored with redacted values, so it cannot be replayed: decide it with a full call (--call), --value or --skip",
    );
    return again.status === "escalated"
      ? { ...again, escalation: { ...again.escalation, verdict: "approval_required" } }
      : again;
  }
  const gate = await p.judge("person", backend, proposal, 0);
  if (gate.verdict !== "accepted")
    return p.escalated(gate, proposal, `the approved call was rejected: ${gate.reason}`);
  return p.dispatch(gate, proposal, "person", decided.decision === "approved" ? decided.details : {});
}
