/** How often each instruction word occurred in training: the base of the familiarity measure. */
export interface FamiliarityData {
  /** Training inputs counted. */
  documents: number;
  /** Inputs whose instruction contained the word. */
  documentFrequency: Record<string, number>;
}

/**
 * How much of an instruction the model has seen before, weighting each distinct word by its inverse document
 * frequency: `known` sums the weights of words seen in training, `unknown` those of words never seen (which
 * weigh as much as the rarest word). Words in every instruction (a template's fixed text) weigh ~0, so an
 * instruction whose variable part is empty, gibberish or from another domain has little known mass — that is what
 * lets the calibrator give it a low confidence even when the classifier's own probability is high.
 */
export function familiarity(
  data: FamiliarityData,
  words: readonly string[],
): { known: number; unknown: number } {
  const n = data.documents;
  const rare = Math.log((n + 1) / 1);
  let known = 0;
  let unknown = 0;
  for (const w of words) {
    const df = Object.hasOwn(data.documentFrequency, w) ? data.documentFrequency[w]! : 0;
    if (df > 0) known += Math.log((n + 1) / (df + 1));
    else unknown += rare;
  }
  return { known, unknown };
}

/** Counts document frequencies over the distinct words of each training instruction. */
export function countFamiliarity(wordSets: readonly (readonly string[])[]): FamiliarityData {
  const documentFrequency: Record<string, number> = {};
  for (const words of wordSets)
    for (const w of new Set(words)) documentFrequency[w] = (documentFrequency[w] ?? 0) + 1;
  return { documents: wordSets.length, documentFrequency };
}
