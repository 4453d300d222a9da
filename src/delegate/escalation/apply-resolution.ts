import type { UnitOutcome } from "../../plan/node-executor.js";
import type { Resolution } from "../../plan/run-state.js";
import { acceptGate } from "../accept-gate.js";
import { dispatch, escalated, gateInput, hop, type Prepared } from "../delegate-unit.js";
import type { Proposal } from "../protocol.js";

/**
 * Applies a person's decision about an earlier escalation: `value` → ok with that value, `skip` → skipped,
 * `call` → the gate's tool, schema and side-effect checks (no confidence, no guard), then dispatch. A call the gate
 * rejects escalates again with the new verdict, so the person can correct it and resume.
 */
export async function applyResolution(p: Prepared, resolution: Resolution): Promise<UnitOutcome> {
  switch (resolution.kind) {
    case "value":
      return {
        status: "ok",
        value: resolution.value,
        details: { verdict: "resolved", resolvedBy: "person", resolution: "value" },
      };
    case "skip":
      return {
        status: "skipped",
        details: { verdict: "resolved", resolvedBy: "person", resolution: "skip" },
      };
    case "call": {
      const proposal: Proposal = {
        name: resolution.call.name,
        arguments: resolution.call.arguments ?? {},
        confidence: null,
        backend: "person",
        latencyMs: 0,
      };
      const gate = acceptGate({ ...gateInput(p), proposal, skipConfidence: true, skipGuard: true });
      await hop(p, "person", "person", proposal, gate, 0);
      if (gate.verdict === "accepted") return dispatch(p, gate, proposal, "person");
      // A bad call pauses again rather than failing the run: the person can correct it and resume.
      return escalated(p, gate, proposal, `the resolution's call was rejected: ${gate.reason}`);
    }
  }
}
