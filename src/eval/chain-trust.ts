import { fitTrustModel, type FitTrustOptions, type TrustFit, type TrustRow } from "../distill/trust-model.js";
import { decisionMatch } from "./decision-match.js";
import type { ChainAnswer } from "./evaluate-chain.js";

/** Verdicts of a readable call that only the confidence check could stop: what a trust model decides on. */
const CALL_VERDICTS = new Set(["accepted", "low_confidence", "unscored"]);

/**
 * A chain's answers as trust rows, one list per level: each call a level proposed that passed every check but the
 * confidence one, with its signals — its confidence, whether the level before proposed the same call (canonical
 * JSON; from the second level on), its similarity to the nearest worked example when it was shown some — and
 * whether it was the person's call.
 */
export function trustRowsOf(answers: readonly ChainAnswer[], levels: number): TrustRow[][] {
  const rows: TrustRow[][] = Array.from({ length: levels }, () => []);
  for (const a of answers) {
    if (!CALL_VERDICTS.has(a.verdict) || !a.proposal || a.proposal.name === null) continue;
    const nearest = a.examples?.[0];
    rows[a.level]?.push({
      signals: {
        confidence: a.confidence,
        ...(a.level > 0
          ? { agreesWithPrevious: a.previous !== undefined && decisionMatch(a.previous, a.proposal) }
          : {}),
        ...(typeof nearest === "number" && Number.isFinite(nearest) ? { nearestSimilarity: nearest } : {}),
      },
      correct: a.correct,
    });
  }
  return rows;
}

/** Fits one trust model per level of a chain from its answers (see `fitTrustModel`). */
export function fitChainTrust(
  answers: readonly ChainAnswer[],
  levels: number,
  options: FitTrustOptions = {},
): TrustFit[] {
  return trustRowsOf(answers, levels).map((rows) => fitTrustModel(rows, options));
}
