/**
 * Confidence that measures the model's *choice* of tool (see docs/backends.md).
 *
 * Under the proposal grammar every answer starts `{"name":` and then the model picks one of a few values: the
 * JSON string of a candidate tool's name, or `null` (decline). That pick — the *decision point* — is all the
 * confidence should measure. The tokens before it are forced by the grammar, and so are most tokens inside a
 * name once it is unambiguous (`"get_wea` can only continue as `ther"`), so averaging every token's
 * probability mostly measures the grammar, not the model.
 *
 * Method: tokenise each candidate value, put the token paths in a trie rooted at the decision point, and at every
 * node where candidates diverge take the model's next-token probabilities of the diverging tokens, renormalised
 * over just those tokens. A candidate's probability is the product of its branch factors; a node with one child
 * contributes 1 (forced, so it cannot dilute), and the candidates' probabilities sum to 1 by construction. The
 * renormalisation also makes raw (pre-grammar) probabilities usable: whatever mass the model put on tokens the
 * grammar forbids is dropped, exactly as the grammar drops it.
 */

/** A candidate value at the decision point: a tool name, or `null` for declining. */
export interface CandidatePath {
  key: string | null;
  tokens: readonly number[];
}

/** Next-token probabilities after the decision point plus `prefix` (only the asked-for tokens are needed). */
export type ProbabilitiesAt = (
  prefix: readonly number[],
  wanted: readonly number[],
) => Promise<ReadonlyMap<number, number>> | ReadonlyMap<number, number>;

const DECISION = /^\s*\{\s*"name"\s*:\s*/;

/**
 * Character offset in a generated proposal where the `name` value starts, or `undefined` when the answer does
 * not start with the `name` key (then the choice is not at a known place and confidence is `null`).
 */
export function decisionOffset(text: string): number | undefined {
  const m = DECISION.exec(text);
  return m ? m[0].length : undefined;
}

/** The values the model chooses between: each tool name as a JSON string, then `null`. */
export function candidateTexts(names: readonly string[]): { key: string | null; text: string }[] {
  return [
    ...names.map((n) => ({ key: n as string | null, text: JSON.stringify(n) })),
    { key: null, text: "null" },
  ];
}

/** Prefixes (token lists) at which two or more candidate paths diverge, each with its distinct next tokens. */
export function branchPoints(paths: readonly CandidatePath[]): { prefix: number[]; next: number[] }[] {
  const out: { prefix: number[]; next: number[] }[] = [];
  const visit = (group: readonly CandidatePath[], depth: number) => {
    const byNext = new Map<number, CandidatePath[]>();
    for (const p of group) {
      const t = p.tokens[depth];
      if (t === undefined) continue;
      const list = byNext.get(t) ?? [];
      list.push(p);
      byNext.set(t, list);
    }
    if (byNext.size > 1) out.push({ prefix: group[0]!.tokens.slice(0, depth), next: [...byNext.keys()] });
    for (const list of byNext.values()) if (list.length > 1) visit(list, depth + 1);
  };
  visit(paths, 0);
  return out;
}

/**
 * The probability of each candidate under the trie method (summing to 1). `probabilitiesAt` is asked only at
 * branch points. When every diverging token has probability 0 (or is missing), the branch is split evenly.
 * Candidates whose token paths are identical share their probability equally.
 */
export async function choiceDistribution(
  paths: readonly CandidatePath[],
  probabilitiesAt: ProbabilitiesAt,
): Promise<Map<string | null, number>> {
  const result = new Map<string | null, number>();
  const visit = async (group: readonly CandidatePath[], depth: number, mass: number): Promise<void> => {
    const byNext = new Map<number, CandidatePath[]>();
    const ended: CandidatePath[] = [];
    for (const p of group) {
      const t = p.tokens[depth];
      if (t === undefined) {
        ended.push(p);
        continue;
      }
      const list = byNext.get(t) ?? [];
      list.push(p);
      byNext.set(t, list);
    }
    const arms = byNext.size + (ended.length > 0 ? 1 : 0);
    if (arms <= 1) {
      if (ended.length > 0) for (const p of ended) result.set(p.key, mass / ended.length);
      else for (const [, list] of byNext) await visit(list, depth + 1, mass);
      return;
    }
    // A path that ends where others continue is a tokenisation accident (JSON strings end with a quote); it
    // gets an even share, the rest is split by the model.
    const endShare = ended.length > 0 ? mass / arms : 0;
    for (const p of ended) result.set(p.key, endShare / ended.length);
    const next = [...byNext.keys()];
    const probs = await probabilitiesAt(group[0]!.tokens.slice(0, depth), next);
    const weights = next.map((t) => Math.max(0, probs.get(t) ?? 0));
    const total = weights.reduce((a, b) => a + b, 0);
    const rest = mass - endShare;
    for (let i = 0; i < next.length; i++) {
      const share = total > 0 ? (rest * weights[i]!) / total : rest / next.length;
      await visit(byNext.get(next[i]!)!, depth + 1, share);
    }
  };
  await visit(paths, 0, 1);
  return result;
}

/**
 * The probability of one candidate under the trie method, asking `probabilitiesAt` only at the branch points on
 * that candidate's own path (the others' branches do not change its share). Equals
 * `choiceDistribution(paths, …).get(key)`; returns 0 for a key that is not a candidate.
 */
export async function choiceProbability(
  paths: readonly CandidatePath[],
  key: string | null,
  probabilitiesAt: ProbabilitiesAt,
): Promise<number> {
  const chosen = paths.find((p) => p.key === key);
  if (!chosen) return 0;
  let group: readonly CandidatePath[] = paths;
  let mass = 1;
  for (let depth = 0; ; depth++) {
    const next = new Set<number>();
    let ended = 0;
    for (const p of group) {
      const t = p.tokens[depth];
      if (t === undefined) ended++;
      else next.add(t);
    }
    const arms = next.size + (ended > 0 ? 1 : 0);
    const own = chosen.tokens[depth];
    if (own === undefined) {
      // The chosen path ends here: its even share among the arms, split with identical paths.
      return (arms > 1 ? mass / arms : mass) / ended;
    }
    if (arms > 1) {
      const endShare = ended > 0 ? mass / arms : 0;
      const tokens = [...next];
      const probs = await probabilitiesAt(chosen.tokens.slice(0, depth), tokens);
      const weights = tokens.map((t) => Math.max(0, probs.get(t) ?? 0));
      const total = weights.reduce((a, b) => a + b, 0);
      const rest = mass - endShare;
      mass = total > 0 ? (rest * weights[tokens.indexOf(own)]!) / total : rest / tokens.length;
    }
    group = group.filter((p) => p.tokens[depth] === own);
  }
}
