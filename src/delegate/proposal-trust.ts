import { canonicalJson } from "../runtime/canonical-json.js";
import type { CallOrDecline } from "../records/hop.js";
import type { Proposal, ProposalTrust, ToolCallDelegate, TrustSignals } from "./protocol.js";

export type { ProposalTrust, TrustSignals } from "./protocol.js";

/**
 * The signals of a proposal at the gate: its confidence; whether it is the same call (canonical JSON of tool and
 * arguments) as the proposal of the hop before in the node's chain, when there was a hop before (`levelBefore`:
 * `{ proposal: undefined }` when that hop gave nothing readable — no agreement); and its similarity to the
 * nearest worked example it was shown (`examples[0]`, when from −1 to 1). A proposal is model output: a signal
 * that is missing or malformed is left out, and a trust model that reads it cannot score the proposal.
 */
export function trustSignals(
  proposal: Pick<Proposal, "name" | "arguments" | "confidence" | "examples">,
  levelBefore?: { proposal: CallOrDecline | undefined },
): TrustSignals {
  const nearest: unknown = Array.isArray(proposal.examples) ? proposal.examples[0] : undefined;
  return {
    confidence: proposal.confidence ?? null,
    ...(levelBefore
      ? { agreesWithPrevious: levelBefore.proposal !== undefined && sameCall(levelBefore.proposal, proposal) }
      : {}),
    // Out of range, it is left out: a model that reads it cannot score the proposal, one that does not still can.
    ...(typeof nearest === "number" && nearest >= -1 && nearest <= 1 ? { nearestSimilarity: nearest } : {}),
  };
}

/**
 * What the next hop's trust model compares with (`levelBefore` of {@link trustSignals}): this hop's call when the
 * gate could read one — not when the backend failed, answered an unusable shape or was not asked for a too long
 * input — a decline included.
 */
export function hopBefore(
  proposal: Pick<Proposal, "name" | "arguments"> | undefined,
  verdict: string,
): { proposal: CallOrDecline | undefined } {
  const readable = proposal !== undefined && verdict !== "backend_error" && verdict !== "input_too_long";
  return { proposal: readable ? { name: proposal.name, arguments: proposal.arguments ?? {} } : undefined };
}

function sameCall(a: CallOrDecline, b: Pick<Proposal, "name" | "arguments">): boolean {
  return a.name === b.name && canonicalJson(a.arguments ?? {}) === canonicalJson(b.arguments ?? {});
}

/**
 * Gives a backend a trust model: the gate of a delegate node then judges its proposals by the model's probability
 * and threshold instead of their raw confidence (see docs/delegates.md, "A trust model"). The backend stays the
 * same object (what checks its class, such as `deputy eval`'s distilled threshold, still sees it); one that
 * cannot take a property (frozen) is wrapped instead. Returns the backend.
 */
export function withTrust<D extends ToolCallDelegate>(
  delegate: D,
  trust: ProposalTrust,
): D | ToolCallDelegate {
  if (Object.isExtensible(delegate) || Object.hasOwn(delegate, "trust")) {
    try {
      Object.defineProperty(delegate, "trust", { value: trust, configurable: true, enumerable: false });
      return delegate;
    } catch {
      // A property it will not take: wrapped below.
    }
  }
  return {
    name: delegate.name,
    maxTools: delegate.maxTools,
    maxInputChars: delegate.maxInputChars,
    trust,
    propose: (request) => delegate.propose(request),
    close: () => delegate.close(),
    ...(delegate.checkSchema ? { checkSchema: (schema) => delegate.checkSchema!(schema) } : {}),
  };
}
