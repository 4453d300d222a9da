import type { ToolCallDelegate } from "../delegate/protocol.js";
import type { BfclCategory, BfclSuiteFile } from "./bfcl-suite.js";
import { evaluateCase, type EvalRecord } from "./evaluate-case.js";

/** The score of a backend on one BFCL category. */
export interface CategoryScore {
  category: BfclCategory;
  cases: number;
  /** AST matches (for the irrelevance categories: declines). */
  correct: number;
  declined: number;
  /** Proposals that failed with a `DelegateBackendError` (a timeout, a broken answer). */
  backendErrors: number;
  /** Cases with more tools than `maxTools` or more input than `maxInputChars` (not asked, not scored). */
  skipped: number;
  /** Summed over the scored cases. */
  latencyMs: number;
  /** `correct` over the scored cases (`cases - skipped`); null when none was scored. */
  accuracy: number | null;
  meanLatencyMs: number | null;
}

/** What {@link evaluateBackend} measured. */
export interface BackendEvaluation {
  delegate: string;
  results: CategoryScore[];
}

/** Options of {@link evaluateBackend}. */
export interface EvaluateBackendOptions {
  /** Called after each case with the file and the cases so far in its category (for progress output). */
  onCase?: (file: string, casesSoFar: number) => void;
  /** Called after each case with its record (proposal, correctness, scores), e.g. to write it out. */
  onRecord?: (record: EvalRecord) => void;
  /** Stops between cases and aborts the running proposal. */
  signal?: AbortSignal;
}

/**
 * Measures a delegate backend on BFCL-format cases: each case's question and functions become one proposal
 * request, and the answer is scored by BFCL's AST-match rules for `simple` and `multiple`, and as correct when it
 * declines for `irrelevance` and `live_irrelevance` (each case judged by {@link evaluateCase}). A backend error
 * counts as wrong (and is tallied); any other error is thrown. The backend is not closed.
 *
 * @example
 * const scores = await evaluateBackend(new LlamaServerDelegate({ baseUrl }), loadBfclSuite("bfcl/"));
 */
export async function evaluateBackend(
  delegate: ToolCallDelegate,
  suite: readonly BfclSuiteFile[],
  options: EvaluateBackendOptions = {},
): Promise<BackendEvaluation> {
  const tallies = new Map<BfclCategory, Omit<CategoryScore, "accuracy" | "meanLatencyMs">>();
  for (const { file, category, samples, answers } of suite) {
    const tally = tallies.get(category) ?? {
      category,
      cases: 0,
      correct: 0,
      declined: 0,
      backendErrors: 0,
      skipped: 0,
      latencyMs: 0,
    };
    tallies.set(category, tally);
    for (const sample of samples) {
      options.signal?.throwIfAborted();
      const answer = answers.get(sample.id);
      const record = await evaluateCase(
        delegate,
        answer ? { category, sample, answer } : { category, sample },
        options.signal,
      );
      tally.cases++;
      if (record.outcome === "skipped") tally.skipped++;
      else tally.latencyMs += record.latencyMs;
      if (record.outcome === "backend_error") tally.backendErrors++;
      if (record.outcome === "proposed" && record.name === null) tally.declined++;
      if (record.correct) tally.correct++;
      options.onRecord?.(record);
      options.onCase?.(file, tally.cases);
    }
  }
  const results = [...tallies.values()].map((t) => {
    const scored = t.cases - t.skipped;
    return {
      ...t,
      accuracy: scored > 0 ? t.correct / scored : null,
      meanLatencyMs: scored > 0 ? t.latencyMs / scored : null,
    };
  });
  return { delegate: delegate.name, results };
}
