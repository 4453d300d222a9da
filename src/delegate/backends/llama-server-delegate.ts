import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import type { JsonSchema } from "../../schema/json-schema.js";
import type { Proposal, ProposeRequest } from "../protocol.js";
import {
  candidateTexts,
  choiceDistribution,
  choiceProbability,
  decisionOffset,
} from "./choice-confidence.js";
import { LLAMA_SERVER_DIALECT, toGrammarSchema } from "./grammar-schema.js";
import { HttpDelegate, type HttpDelegateOptions, type HttpProposeCall } from "./http-delegate.js";
import {
  answerConfidenceOfTokens,
  CONFIDENCE_METHODS,
  type ConfidenceMethod,
} from "../../confidence/answer-confidence.js";
import { parseProposal } from "./parse-proposal.js";

/**
 * Options of {@link LlamaServerDelegate}: the HTTP backends' shared options ({@link HttpDelegateOptions}, the same
 * names and defaults), plus what only llama-server has.
 */
export interface LlamaServerDelegateOptions extends HttpDelegateOptions {
  /** Where llama-server listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Sent as `model` (for servers that route between models). */
  model?: string;
  /** Backend name in proposals and traces. Default `"llama-server"`. */
  name?: string;
  /**
   * How confidence is measured (see docs/quality.md): `"answer"` — from the probabilities of the answer's value
   * tokens (tool name, argument values) that the server returns with the completion, no extra request;
   * `"choice"` — the probability of the chosen tool among the candidates only (one short extra `/completion`
   * per branch point). Default `"answer"`.
   */
  confidenceMethod?: ConfidenceMethod;
  /** How many top next-token probabilities to ask for at a branch point (`n_probs`). Default 100. */
  topLogprobs?: number;
  /** `n_predict`. Default 512. */
  maxOutputTokens?: number;
  /** @internal Test hooks. */
  _internal?: { onChoiceDistribution?: (distribution: Map<string | null, number>) => void };
}

interface CompletionAnswer {
  content?: string;
  tokens?: number[];
  tokens_evaluated?: number;
  tokens_cached?: number;
  timings?: { prompt_n?: number; predicted_n?: number; cache_n?: number };
  completion_probabilities?: {
    id: number;
    token?: string;
    bytes?: number[];
    logprob?: number;
    top_logprobs?: { id: number; logprob: number }[];
  }[];
}

/**
 * The HTTP delegate for a llama-server (the seed's `LlamaCppDelegate`): renders the prompt with the server's own
 * chat template (`/apply-template`), decodes with `/completion` constrained by the proposal schema
 * (`json_schema`, compiled to a grammar by the server), and — with `confidence` (the default) — measures the choice confidence
 * with one short extra `/completion` per branch point of the candidates (`n_probs`, pre-sampling probabilities,
 * prompt served from the server's cache). Connection refused, HTTP errors, timeouts and unparseable answers are
 * {@link DelegateBackendError}s carrying the cause (mapped by the HTTP backends' base, {@link HttpDelegate}).
 *
 * @example
 * const delegate = new LlamaServerDelegate({ baseUrl: "http://127.0.0.1:8080", timeoutMs: 10_000 });
 */
export class LlamaServerDelegate extends HttpDelegate {
  readonly #model: string | undefined;
  readonly #confidenceMethod: ConfidenceMethod;
  readonly #internal: LlamaServerDelegateOptions["_internal"];
  readonly #tokenCache = new Map<string, number[]>();
  readonly #schemas = new WeakMap<JsonSchema, JsonSchema>();

  constructor(options: LlamaServerDelegateOptions) {
    super(options, { name: "llama-server", topLogprobs: 100 });
    if (options.confidenceMethod !== undefined && !CONFIDENCE_METHODS.includes(options.confidenceMethod)) {
      throw new InvalidOptionError("confidenceMethod", '"answer" or "choice"', options.confidenceMethod);
    }
    this.#model = options.model;
    this.#confidenceMethod = options.confidenceMethod ?? "answer";
    this.#internal = options._internal;
  }

  /** Reports proposal-schema features llama-server's JSON-schema grammar cannot express. */
  checkSchema(schema: JsonSchema): string | undefined {
    const { issues } = toGrammarSchema(schema, LLAMA_SERVER_DIALECT);
    return issues.length === 0
      ? undefined
      : `llama-server's JSON-schema grammar cannot express ${issues.join(", ")}`;
  }

  protected async complete({ request, schema, messages, signal }: HttpProposeCall) {
    const { prompt } = (await this.#post("/apply-template", { messages }, signal)) as { prompt: string };
    const useLogprobs = this.settings.confidence;
    const promptIds =
      useLogprobs && this.#confidenceMethod === "choice"
        ? await this.#tokenize(prompt, true, signal)
        : undefined;
    const answer = (await this.#post(
      "/completion",
      {
        prompt: promptIds ?? prompt,
        json_schema: this.#serverSchema(schema),
        n_predict: this.settings.maxOutputTokens,
        temperature: this.settings.temperature,
        cache_prompt: true,
        return_tokens: true,
        ...(useLogprobs ? { n_probs: 1, post_sampling_probs: false } : {}),
      },
      signal,
    )) as CompletionAnswer;
    const raw = typeof answer.content === "string" ? answer.content : "";
    const parsed = parseProposal(this.name, raw);
    const confidence = !useLogprobs
      ? null
      : this.#confidenceMethod === "answer"
        ? answerFromServer(answer)
        : promptIds
          ? await this.#confidence(promptIds, answer, raw, parsed.name, request, signal)
          : null;
    const meanTokenProbability = useLogprobs ? meanProbability(answer) : undefined;
    const usage: Proposal["usage"] = {};
    const inputTokens = answer.tokens_evaluated ?? promptIds?.length;
    if (inputTokens !== undefined) usage.inputTokens = inputTokens;
    const outputTokens = answer.timings?.predicted_n ?? answer.tokens?.length;
    if (outputTokens !== undefined) usage.outputTokens = outputTokens;
    const cached = answer.tokens_cached ?? answer.timings?.cache_n;
    if (cached !== undefined) usage.cachedInputTokens = cached;
    return {
      name: parsed.name,
      arguments: parsed.arguments,
      confidence,
      ...(meanTokenProbability !== undefined ? { meanTokenProbability } : {}),
      usage,
    };
  }

  /** The schema as llama-server's grammar compiler needs it (cached per schema object). */
  #serverSchema(schema: JsonSchema): JsonSchema {
    let out = this.#schemas.get(schema);
    if (!out) {
      out = toGrammarSchema(schema, LLAMA_SERVER_DIALECT).schema;
      this.#schemas.set(schema, out);
    }
    return out;
  }

  #post(path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    // `model` goes with completions only (for servers that route between models).
    const routed = path === "/completion" && this.#model ? { ...body, model: this.#model } : body;
    return this.post(path, routed, signal);
  }

  async #tokenize(content: string, special: boolean, signal: AbortSignal): Promise<number[]> {
    const key = `${special ? 1 : 0}\0${content}`;
    const hit = this.#tokenCache.get(key);
    if (hit) return hit;
    const answer = (await this.#post(
      "/tokenize",
      { content, add_special: special, parse_special: special },
      signal,
    )) as { tokens?: unknown };
    if (!Array.isArray(answer.tokens) || !answer.tokens.every((t) => typeof t === "number")) {
      throw new DelegateBackendError(this.name, `${this.name}: /tokenize answered without token ids`);
    }
    // Prompts differ per proposal; only short candidate texts are worth remembering.
    if (!special) {
      if (this.#tokenCache.size >= 2048) this.#tokenCache.delete(this.#tokenCache.keys().next().value!);
      this.#tokenCache.set(key, answer.tokens);
    }
    return answer.tokens;
  }

  async #confidence(
    promptIds: number[],
    answer: CompletionAnswer,
    text: string,
    chosen: string | null,
    request: ProposeRequest,
    signal: AbortSignal,
  ): Promise<number | null> {
    const offset = decisionOffset(text);
    const generated = answer.tokens;
    const pieces = answer.completion_probabilities;
    if (offset === undefined || !generated || !pieces || pieces.length < generated.length) return null;
    // Generated tokens that end at or before the decision point (the prefix is ASCII, so bytes = characters).
    let k = 0;
    let consumed = 0;
    while (k < generated.length) {
      const next = consumed + (pieces[k]?.bytes?.length ?? Number.POSITIVE_INFINITY);
      if (next > offset) break;
      consumed = next;
      k++;
    }
    const leftover = text.slice(consumed, offset);
    const paths = await Promise.all(
      candidateTexts(request.tools.map((t) => t.name)).map(async (c) => ({
        key: c.key,
        tokens: await this.#tokenize(leftover + c.text, false, signal),
      })),
    );
    const base = [...promptIds, ...generated.slice(0, k)];
    const probabilitiesAt = async (prefix: readonly number[]) => {
      const probe = (await this.#post(
        "/completion",
        {
          prompt: [...base, ...prefix],
          n_predict: 1,
          n_probs: this.settings.topLogprobs,
          post_sampling_probs: false,
          temperature: 0,
          cache_prompt: true,
        },
        signal,
      )) as CompletionAnswer;
      const top = probe.completion_probabilities?.[0]?.top_logprobs ?? [];
      return new Map(top.map((t) => [t.id, Math.exp(t.logprob)]));
    };
    const hook = this.#internal?.onChoiceDistribution;
    if (!hook) return choiceProbability(paths, chosen, probabilitiesAt);
    const distribution = await choiceDistribution(paths, probabilitiesAt);
    hook(distribution);
    return distribution.get(chosen) ?? 0;
  }
}

/**
 * The answer confidence from the server's per-token pre-sampling probabilities: llama-server does not report
 * probabilities renormalised under the grammar (at temperature 0 its post-sampling ones are all 1), so the
 * value tokens' raw probabilities stand in — inside a value the grammar allows almost every token, so the two
 * nearly agree there (see answer-confidence.ts and docs/quality.md).
 */
function answerFromServer(answer: CompletionAnswer): number | null {
  const pieces = answer.completion_probabilities;
  if (!pieces || pieces.length === 0 || pieces.some((p) => typeof p.logprob !== "number")) return null;
  const decoder = new TextDecoder();
  return answerConfidenceOfTokens(
    pieces.map((p) => p.token ?? decoder.decode(new Uint8Array(p.bytes ?? []))),
    pieces.map((p) => Math.exp(p.logprob!)),
  );
}

/** Mean pre-sampling probability of the generated tokens (`n_probs` with `post_sampling_probs: false`). */
function meanProbability(answer: CompletionAnswer): number | undefined {
  const logprobs = (answer.completion_probabilities ?? []).map((p) => p.logprob);
  if (logprobs.length === 0 || logprobs.some((l) => typeof l !== "number")) return undefined;
  return logprobs.reduce((sum: number, l) => sum + Math.exp(l!), 0) / logprobs.length;
}
