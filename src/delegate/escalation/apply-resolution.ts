import type { UnitOutcome } from "../../plan/node-executor.js";
import type { Resolution } from "../../records/escalation.js";
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
  }
}
