import { inputChars } from "../runtime/tool-call-prompt.js";
import { verbatimShare } from "../confidence/proposal-context.js";
import type { Proposal, ToolCallDelegate } from "../delegate/protocol.js";
import type { CallOrDecline } from "../records/hop.js";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { bfclAstMatch } from "./bfcl-ast-match.js";
import { bfclQuestion, bfclToToolSpec } from "./bfcl.js";
import { type BfclCase, type BfclCategory, isDeclineCategory } from "./bfcl-suite.js";

/** What happened to one evaluated case: the proposal, whether it is exactly right, and its scores. */
export interface EvalRecord
  extends Partial<CallOrDecline>, Pick<Proposal, "confidence" | "meanTokenProbability" | "latencyMs"> {
  id: string;
  category: BfclCategory;
  /** The backend's name. */
  backend: string;
  /**
   * `proposed` (a call or a decline: then `name`, `null` for a decline, and `arguments`), `backend_error`, or
   * `skipped` (too many tools or too long an input).
   */
  outcome: "proposed" | "backend_error" | "skipped";
  /** Exactly right by BFCL's AST rules (a decline in the irrelevance categories). */
  correct: boolean;
  /** Why not, in BFCL's words, when it is a call that does not match. */
  error?: string;
  /** Share of the call's argument values found verbatim in the question (proposal-context.ts), when proposed. */
  verbatimShare?: number;
  /** How many candidate tools the case had. */
  tools: number;
}

/**
 * Runs one BFCL case through a delegate and judges it: for call categories the proposal must match the ground
 * truth by BFCL's AST rules; for irrelevance the right answer is to decline. Backend errors are recorded, not
 * thrown; a case with more tools than `maxTools` or a longer input than `maxInputChars` is `skipped`.
 */
export async function evaluateCase(
  delegate: ToolCallDelegate,
  testCase: BfclCase,
  signal?: AbortSignal,
): Promise<EvalRecord> {
  const { category, sample, answer } = testCase;
  const tools = sample.function.map(bfclToToolSpec);
  const instruction = bfclQuestion(sample);
  const base = { id: sample.id, category, backend: delegate.name, tools: tools.length };
  if (tools.length > delegate.maxTools || inputChars(instruction, {}) > delegate.maxInputChars) {
    return { ...base, outcome: "skipped", correct: false, confidence: null, latencyMs: 0 };
  }
  const started = performance.now();
  try {
    const proposal = await delegate.propose({ instruction, facts: {}, tools, ...(signal ? { signal } : {}) });
    const record: EvalRecord = {
      ...base,
      outcome: "proposed",
      name: proposal.name,
      arguments: proposal.arguments,
      correct: false,
      confidence: proposal.confidence,
      latencyMs: performance.now() - started,
      verbatimShare: verbatimShare(instruction, proposal.arguments),
    };
    if (proposal.meanTokenProbability !== undefined) {
      record.meanTokenProbability = proposal.meanTokenProbability;
    }
    if (isDeclineCategory(category)) {
      record.correct = proposal.name === null;
    } else if (proposal.name === null) {
      record.error = "declined";
    } else if (answer) {
      const params = tools.find((t) => t.name === proposal.name)?.parameters;
      const match = bfclAstMatch({ name: proposal.name, arguments: proposal.arguments }, answer, params);
      record.correct = match.ok;
      if (match.error) record.error = match.error;
    }
    return record;
  } catch (error) {
    if (!DelegateBackendError.isInstance(error)) throw error;
    return {
      ...base,
      outcome: "backend_error",
      correct: false,
      error: error.message.slice(0, 300),
      confidence: null,
      latencyMs: performance.now() - started,
    };
  }
}
