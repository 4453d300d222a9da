import type { LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp";
import {
  candidateTexts,
  choiceDistribution,
  choiceProbability,
  decisionOffset,
  type ProbabilitiesAt,
} from "./choice-confidence.js";

/** Raw next-token distribution: no temperature, truncation or grammar (the trie renormalises). */
const RAW = { temperature: 1, topK: 0, topP: 1, minP: 0 } as const;

/**
 * Next-token probabilities after `base` + a branch prefix, read from the sequence: it is cut back to just before
 * the decision point and the last base token plus the prefix are evaluated in one batch (the prompt stays
 * cached). Results are memoised per prefix.
 */
export function sequenceProbabilities(
  sequence: LlamaContextSequence,
  base: readonly Token[],
): ProbabilitiesAt {
  const keep = base.length - 1;
  const last = base[keep]!;
  const memo = new Map<string, ReadonlyMap<number, number>>();
  return async (prefix) => {
    const key = prefix.join(",");
    const hit = memo.get(key);
    if (hit) return hit;
    if (sequence.nextTokenIndex > keep) {
      await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    }
    const items = [last, ...prefix] as Token[];
    const input = items.map((token, i) =>
      i === items.length - 1
        ? ([token, { generateNext: { probabilities: true, options: RAW } }] as const)
        : token,
    );
    const result = await sequence.controlledEvaluate(input as never);
    const probabilities: ReadonlyMap<number, number> =
      result[items.length - 1]?.next.probabilities ?? new Map();
    memo.set(key, probabilities);
    return probabilities;
  };
}

/**
 * Raw probability of each generated token (read from the distribution before it, without grammar or
 * temperature, truncated to the top 40 tokens): the prompt's last token and all generated tokens but the last
 * are evaluated in one batch. With `wanted`, only those tokens' distributions are computed (logits cost a
 * vocabulary-sized matrix product each); the others read `NaN`.
 */
export async function rawGeneratedProbabilities(
  sequence: LlamaContextSequence,
  promptTokens: readonly Token[],
  generated: readonly Token[],
  wanted?: readonly boolean[],
): Promise<number[]> {
  if (generated.length === 0) return [];
  const keep = promptTokens.length - 1;
  if (sequence.nextTokenIndex > keep) {
    await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  }
  const items = [promptTokens[keep]!, ...generated.slice(0, -1)];
  // The top 40 carry almost all the mass of a trained model and keep this cheap (a full 150k-entry map per
  // token costs more than the proposal); a token outside them counts as 0.
  const input = items.map((token, i) =>
    wanted && !wanted[i]
      ? token
      : ([token, { generateNext: { probabilities: true, options: { ...RAW, topK: 40 } } }] as const),
  );
  const result = await sequence.controlledEvaluate(input as never);
  return generated.map((token, i) =>
    wanted && !wanted[i] ? NaN : (result[i]?.next.probabilities?.get(token) ?? 0),
  );
}

/** A finished generation on a sequence, as {@link localChoiceConfidence} reads it. */
export interface LocalGeneration {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  promptTokens: Token[];
  generated: Token[];
  text: string;
  /** The tool the answer chose (`null`: declined). */
  chosen: string | null;
}

/**
 * The choice confidence on an in-process sequence: the chosen tool's probability among the candidates at the
 * answer's decision point (null when the text has none). `onDistribution` (evaluations) gets every candidate's.
 */
export async function localChoiceConfidence(
  { model, sequence, promptTokens, generated, text, chosen }: LocalGeneration,
  toolNames: readonly string[],
  onDistribution?: (distribution: Map<string | null, number>) => void,
): Promise<number | null> {
  const offset = decisionOffset(text);
  if (offset === undefined) return null;
  // The generated tokens that end at or before the decision point; any rest of the prefix (a token that
  // straddles it) is prepended to every candidate, so all paths start from the same model state.
  let k = 0;
  let consumed = "";
  while (k < generated.length) {
    const next = model.detokenize(generated.slice(0, k + 1));
    if (next.length > offset) break;
    consumed = next;
    k++;
  }
  const leftover = text.slice(consumed.length, offset);
  const paths = candidateTexts(toolNames).map((c) => ({
    key: c.key,
    tokens: model.tokenize(leftover + c.text, false),
  }));
  const probabilitiesAt = sequenceProbabilities(sequence, [...promptTokens, ...generated.slice(0, k)]);
  if (!onDistribution) return choiceProbability(paths, chosen, probabilitiesAt);
  const distribution = await choiceDistribution(paths, probabilitiesAt);
  onDistribution(distribution);
  return distribution.get(chosen) ?? 0;
}
