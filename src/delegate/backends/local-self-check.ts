/**
 * The self-check after a call: the model that proposed it is asked, in a second short prompt, whether calling
 * that tool with those arguments does what the task asks, and answers yes or no. The score is
 * P(yes) / (P(yes) + P(no)) at the first answer token, read from the raw distribution (no grammar or
 * temperature). It catches what the call's own confidence cannot: a near-miss question (a tool close to what is
 * asked, but not it) answered by a model sure of its arguments — measured on BFCL in docs/quality.md
 * ("Self-check"). It can only decline a call or lower its confidence, never make one.
 */
import type { ChatWrapper, LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp";
import { canonicalJson } from "../../runtime/canonical-json.js";
import type { Proposal, ToolSpec } from "../protocol.js";
import type { ProposalSelfCheck } from "../../tools/proposal.js";

/** The self-check's system part. */
export const SELF_CHECK_SYSTEM = "You review tool calls. Answer with one word: yes or no.";

/** Longest tool description the self-check shows, in characters (a description is the user's text, unbounded). */
const MAX_DESCRIPTION_CHARS = 1000;

/** The task as the self-check shows it: the instruction, then the facts as sorted JSON when there are any. */
export function selfCheckTask(instruction: string, facts: Record<string, unknown>): string {
  return Object.keys(facts).length === 0 ? instruction : `${instruction}\nFacts: ${canonicalJson(facts)}`;
}

/**
 * The self-check question for one call (as measured: bench/results/relevance/protocol-selfcheck.md). The
 * arguments are the model's own output, shown back to the same local model as data.
 */
export function selfCheckPrompt(
  task: string,
  tool: Pick<ToolSpec, "name"> & { description?: string | undefined },
  args: unknown,
): string {
  const description = (tool.description ?? "").slice(0, MAX_DESCRIPTION_CHARS) || "(no description)";
  return [
    "A user wrote:",
    task,
    "",
    "An assistant answered by calling this tool:",
    `${tool.name}: ${description}`,
    "",
    "The call's arguments:",
    JSON.stringify(args),
    "",
    "Does calling this tool do what the user asked for, with values the user gave? Answer yes or no.",
  ].join("\n");
}

/** Raw distribution over the 40 likeliest tokens: yes and no are among them whenever the model answers either. */
const RAW_TOP_40 = { temperature: 1, topK: 40, topP: 1, minP: 0 } as const;

/** Which tokens read as yes or no (trimmed, any case), memoised per model. */
const sides = new WeakMap<LlamaModel, Map<number, "yes" | "no" | undefined>>();
function sideOf(model: LlamaModel, token: number): "yes" | "no" | undefined {
  let memo = sides.get(model);
  if (!memo) sides.set(model, (memo = new Map()));
  if (!memo.has(token)) {
    const piece = model
      .detokenize([token as Token])
      .trim()
      .toLowerCase();
    memo.set(token, piece === "yes" ? "yes" : piece === "no" ? "no" : undefined);
  }
  return memo.get(token);
}

/** The share of yes among yes and no in a next-token distribution; 0.5 when it holds neither. */
export function yesShare(
  probabilities: Iterable<readonly [number, number]>,
  side: (token: number) => "yes" | "no" | undefined,
): number {
  let yes = 0;
  let no = 0;
  for (const [token, p] of probabilities) {
    const s = side(token);
    if (s === "yes") yes += p;
    else if (s === "no") no += p;
  }
  return yes + no > 0 ? yes / (yes + no) : 0.5;
}

/**
 * Evaluates the self-check prompt on `sequence`, cleared first (the self-check has a sequence of its own, so the
 * proposals' cached prefix stays where it is), and returns the score (0–1): the same for the same call whatever
 * was checked before it.
 */
export async function selfCheckScore(
  model: LlamaModel,
  wrapper: ChatWrapper,
  sequence: LlamaContextSequence,
  prompt: string,
): Promise<number> {
  const { contextText } = wrapper.generateContextState({
    chatHistory: [
      { type: "system", text: SELF_CHECK_SYSTEM },
      { type: "user", text: prompt },
      { type: "model", response: [] },
    ],
  });
  const tokens = contextText.tokenize(model.tokenizer);
  // The whole prompt every time: reusing what the previous check shared with it (the template and the system
  // line, ~20 tokens) changed scores by up to 0.03, so a call's score depended on the check before it.
  if (sequence.nextTokenIndex > 0) await sequence.clearHistory();
  const input = tokens.map((t, i) =>
    i === tokens.length - 1
      ? ([t, { generateNext: { probabilities: true, options: RAW_TOP_40 } }] as const)
      : t,
  );
  const result = await sequence.controlledEvaluate(input as never);
  const probabilities: ReadonlyMap<number, number> =
    result[tokens.length - 1]?.next.probabilities ?? new Map();
  return yesShare(probabilities, (t) => sideOf(model, t));
}

/**
 * A call after its self-check: below `threshold` a decline that records the call it replaced; otherwise the call
 * with its confidence multiplied by the score (a score of 1 leaves it as it was; none raises it).
 */
export function applySelfCheck(proposal: Proposal, score: number, threshold: number): Proposal {
  const selfCheck: ProposalSelfCheck = { score, threshold, callConfidence: proposal.confidence };
  if (proposal.name === null) return proposal;
  if (score < threshold) {
    return {
      ...proposal,
      name: null,
      arguments: {},
      // The call's confidence is not the decline's: it stays in the record of why.
      confidence: null,
      selfCheck: { ...selfCheck, declined: proposal.name },
    };
  }
  return {
    ...proposal,
    confidence: proposal.confidence === null ? null : proposal.confidence * score,
    selfCheck,
  };
}
