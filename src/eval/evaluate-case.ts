import { inputChars } from "../runtime/tool-call-prompt.js";
import { verbatimShare } from "../confidence/proposal-context.js";
import type { Proposal, ToolCallDelegate, ToolSpec } from "../delegate/protocol.js";
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
  const { category, sample } = testCase;
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
    const judged = judgeBfclProposal(testCase, proposal, tools);
    record.correct = judged.correct;
    if (judged.error) record.error = judged.error;
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

/**
 * Whether a proposal is right for a BFCL case: a decline in the irrelevance categories; otherwise a call matching
 * the ground truth by BFCL's AST rules (`bfclAstMatch`), with why not. Judges a recorded call again, too.
 */
export function judgeBfclProposal(
  testCase: BfclCase,
  proposal: CallOrDecline,
  tools: readonly ToolSpec[] = testCase.sample.function.map(bfclToToolSpec),
): { correct: boolean; error?: string } {
  if (isDeclineCategory(testCase.category)) return { correct: proposal.name === null };
  if (proposal.name === null) return { correct: false, error: "declined" };
  if (!testCase.answer) return { correct: false };
  const params = tools.find((t) => t.name === proposal.name)?.parameters;
  const match = bfclAstMatch({ name: proposal.name, arguments: proposal.arguments }, testCase.answer, params);
  return match.error ? { correct: match.ok, error: match.error } : { correct: match.ok };
}
