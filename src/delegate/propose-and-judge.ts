import { acceptGate, type GateInput, type GateResult } from "./accept-gate.js";
import { inputChars } from "../runtime/tool-call-prompt.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "./protocol.js";
import { recordProposal, type JudgedHop, type ProposalSource } from "./record-proposal.js";
import type { TraceSink } from "../traces/trace.js";

/** What {@link proposeAndJudge} needs besides the backend. */
export interface ProposeAndJudgeInput {
  /** What the backend is asked; `context` names the unit in the trace and the event (default `-`/`-`). */
  request: ProposeRequest;
  /** The gate's input less what this function fills in (the proposal, the backend's error and the input size). */
  gate: Omit<GateInput, "proposal" | "backendError" | "inputChars" | "maxInputChars">;
  /** Where the hop's trace goes (none: no trace, the event is still published). */
  traceSink?: TraceSink | undefined;
  /** Who proposed, for the trace and the event. Default `delegate`. */
  source?: ProposalSource;
}

/**
 * One judged proposal: the proposal (absent when the backend failed or was not asked), the gate's verdict and the
 * proposal's own latency (else the time the call took) — a {@link JudgedHop} less who proposed it.
 */
export interface Judged extends Pick<JudgedHop, "proposal" | "gate" | "latencyMs"> {
  /** What the backend threw, when it did. */
  backendError?: unknown;
}

/**
 * Propose and judge, the one path every delegate proposal takes (delegate nodes, the router tool, the backend
 * conformance suite): ask the backend for one tool call — unless the instruction and facts are longer than its
 * `maxInputChars` (never truncated: `input_too_long`) — catch what it throws, pass the answer through the accept
 * gate, then publish the hop on `deputy:proposal` and write its trace. Never throws; nothing runs here — the
 * caller dispatches the gate's `call` only when the verdict is `accepted`.
 */
export async function proposeAndJudge(
  delegate: ToolCallDelegate,
  input: ProposeAndJudgeInput,
): Promise<Judged> {
  const { request } = input;
  const chars = inputChars(request.instruction, request.facts);
  const started = performance.now();
  let proposal: Proposal | undefined;
  let backendError: unknown;
  if (chars <= delegate.maxInputChars) {
    try {
      proposal = await delegate.propose(request);
    } catch (error) {
      backendError = error;
    }
  }
  const latencyMs = proposal?.latencyMs ?? Math.round(performance.now() - started);
  const gate = await judgeProposal({
    proposal,
    ...(backendError === undefined ? {} : { backendError }),
    gate: { ...input.gate, inputChars: chars, maxInputChars: delegate.maxInputChars },
    request,
    backend: delegate.name,
    source: input.source ?? "delegate",
    latencyMs,
    traceSink: input.traceSink,
  });
  return { proposal, ...(backendError === undefined ? {} : { backendError }), gate, latencyMs };
}

/** What {@link judgeProposal} needs: a proposal already in hand (or the failure to get one). */
export interface JudgeProposalInput {
  proposal: Proposal | undefined;
  backendError?: unknown;
  /** The gate's input less the proposal and the backend's error. */
  gate: Omit<GateInput, "proposal" | "backendError">;
  /** What was asked (the trace records it; `context` names the unit). */
  request: Pick<ProposeRequest, "instruction" | "facts" | "tools" | "context">;
  backend: string;
  source: ProposalSource;
  latencyMs: number;
  traceSink?: TraceSink | undefined;
}

/**
 * The judging half of {@link proposeAndJudge}, for a proposal that did not come from a backend's `propose` (an
 * `escalate_to` agent's answer, a person's resolution): the accept gate, then the `deputy:proposal` event and the
 * trace. Never throws.
 */
export async function judgeProposal(input: JudgeProposalInput): Promise<GateResult> {
  const { proposal, request } = input;
  const gate = acceptGate({
    ...input.gate,
    proposal,
    ...(input.backendError === undefined ? {} : { backendError: input.backendError }),
  });
  await recordProposal(
    input.traceSink,
    {
      runId: request.context?.runId ?? "-",
      nodeId: request.context?.nodeId ?? "-",
      ...(request.context?.item === undefined ? {} : { item: request.context.item }),
    },
    request,
    { proposal, gate, backend: input.backend, source: input.source, latencyMs: input.latencyMs },
  );
  return gate;
}
