import { delegateHost } from "./host-capabilities.js";
import { serializeError } from "../errors/deputy-error.js";
import type { NodeExecutor, UnitOutcome } from "../plan/node-executor.js";
import type { GateResult } from "./accept-gate.js";
import type { DelegateNode } from "./delegate-node.js";
import { applyResolution } from "./escalation/apply-resolution.js";
import { askAgent } from "./escalation/ask-escalate-to.js";
import { DelegateUnit } from "./delegate-unit.js";
import type { Proposal } from "./protocol.js";

export { toolSpec, type HopSummary } from "./delegate-unit.js";

/**
 * Runs `delegate` nodes: render the instruction and facts, ask the backend chain for one tool call, pass it
 * through the accept gate with `proposeAndJudge` (every hop traced), dispatch it only when `accepted` (with the
 * node's retry and timeout), and apply `on_reject` otherwise (`escalate` after every fitting backend has been asked
 * once). A unit resumed with a person's resolution uses it instead
 * (`call` still passes the gate's tool, schema and side-effect checks). The outcome's `details` hold the verdict,
 * confidence, backend and hops, so the manifest shows per-item verdicts. Its checks are the node type's
 * (`delegateNodeType`).
 */
export const delegateNodeExecutor: NodeExecutor<DelegateNode> = {
  async execute(node, unit) {
    let p: DelegateUnit;
    try {
      p = new DelegateUnit(node, unit);
    } catch (error) {
      return { status: "error", error: serializeError(error) };
    }
    if (unit.resolution) return applyResolution(p, unit.resolution);
    const backends = delegateHost(unit.host).delegates.filter((d) => d.maxTools >= p.task.tools.length);
    if (backends.length === 0) {
      return p.failure({
        code: "DELEGATE_NOT_CONFIGURED",
        message:
          delegateHost(unit.host).delegates.length === 0
            ? "No delegate backend is configured (pass one with --delegate or the `delegates` option)."
            : `No configured delegate backend accepts ${p.task.tools.length} tools (maxTools: ${delegateHost(
                unit.host,
              )
                .delegates.map((d) => `${d.name}=${d.maxTools}`)
                .join(", ")}).`,
      });
    }
    // retry_backend asks each fitting backend up to retry.max_attempts times; escalate asks each once (a cascade
    // of small models, cheapest first) before its escalate_to agent or a person; fail asks the first only.
    const chain =
      node.on_reject === "retry_backend"
        ? backends.flatMap((b) => Array.from({ length: node.retry.max_attempts }, () => b))
        : node.on_reject === "escalate"
          ? backends
          : [backends[0]!];
    let last: { gate: GateResult; proposal: Proposal | undefined } | undefined;
    for (const backend of chain) {
      if (unit.signal.aborted) return p.failure({ code: "ABORTED", message: "The run was aborted." });
      last = await p.propose(backend);
      if (last.gate.verdict === "accepted") return p.dispatch(last.gate, last.proposal!, "delegate");
    }
    // A proposal cut short by the run's abort is no verdict on the model: never escalate or fail it as one.
    if (unit.signal.aborted) return p.failure({ code: "ABORTED", message: "The run was aborted." });
    return reject(p, last!.gate, last!.proposal);
  },
};

async function reject(
  p: DelegateUnit,
  gate: GateResult,
  proposal: Proposal | undefined,
): Promise<UnitOutcome> {
  if (p.node.on_reject === "escalate") {
    return (await askAgent(p, gate, proposal)) ?? p.escalated(gate, proposal, gate.reason);
  }
  const tries = p.hops.length > 1 ? ` after ${p.hops.length} proposals` : "";
  return {
    status: "error",
    error: {
      code: "DELEGATE_REJECTED",
      message: `The delegate's proposal was rejected${tries} (${gate.verdict}): ${gate.reason}.`,
      details: { verdict: gate.verdict, ...(gate.issues ? { issues: gate.issues } : {}) },
    },
    details: p.summary(gate, proposal),
  };
}
