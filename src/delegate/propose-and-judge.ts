import { acceptGate, type GateInput, type GateResult } from "./accept-gate.js";
import { inputChars } from "../tools/tool-call-prompt.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "./protocol.js";
import { recordProposal, type ProposalSource } from "./record-proposal.js";
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

/** One judged proposal: the proposal (absent when the backend failed or was not asked) and the gate's verdict. */
export interface Judged {
  proposal: Proposal | undefined;
  /** What the backend threw, when it did. */
  backendError?: unknown;
  gate: GateResult;
  /** The proposal's own latency, else the time the call took. */
  latencyMs: number;
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
  const gate = acceptGate({
    ...input.gate,
    proposal,
    ...(backendError === undefined ? {} : { backendError }),
    inputChars: chars,
    maxInputChars: delegate.maxInputChars,
  });
  const latencyMs = proposal?.latencyMs ?? Math.round(performance.now() - started);
  await recordProposal(input.traceSink, {
    runId: request.context?.runId ?? "-",
    nodeId: request.context?.nodeId ?? "-",
    ...(request.context?.item === undefined ? {} : { item: request.context.item }),
    instruction: request.instruction,
    facts: request.facts,
    tools: request.tools,
    proposal,
    gate,
    backend: delegate.name,
    source: input.source ?? "delegate",
    latencyMs,
  });
  return { proposal, ...(backendError === undefined ? {} : { backendError }), gate, latencyMs };
}
