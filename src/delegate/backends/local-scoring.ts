import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { ProbabilitiesAt } from "./choice-confidence.js";

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
