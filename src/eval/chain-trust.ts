import { fitTrustModel, type FitTrustOptions, type TrustFit, type TrustRow } from "../distill/trust-model.js";
import { trustSignals } from "../delegate/proposal-trust.js";
import type { ChainAnswer } from "./evaluate-chain.js";

/** Verdicts of a readable call that only the confidence check could stop: what a trust model decides on. */
const CALL_VERDICTS = new Set(["accepted", "low_confidence", "unscored"]);

/**
 * A chain's answers as trust rows, one list per level: each call a level proposed that passed every check but the
 * confidence one, with its signals — its confidence, whether the level before proposed the same call (canonical
 * JSON; from the second level on), its similarity to the nearest worked example when it was shown some — and
 * whether it was the person's call. The signals are those the gate read (`ChainAnswer.signals`); an answer
 * without them has them worked out the gate's way (`trustSignals`), the level before its `previous`.
 */
export function trustRowsOf(answers: readonly ChainAnswer[], levels: number): TrustRow[][] {
  const rows: TrustRow[][] = Array.from({ length: levels }, () => []);
  for (const a of answers) {
    if (!CALL_VERDICTS.has(a.verdict) || !a.proposal || a.proposal.name === null) continue;
    const signals =
      a.signals ??
      trustSignals(
        { ...a.proposal, confidence: a.confidence, ...(a.examples ? { examples: a.examples } : {}) },
        a.level > 0 ? { proposal: a.previous } : undefined,
      );
    rows[a.level]?.push({ signals, correct: a.correct });
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
