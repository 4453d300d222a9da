import type { Proposal } from "../protocol.js";
import { decisionOffset } from "./choice-confidence.js";
import { HttpDelegate, type HttpDelegateOptions, type HttpProposeCall } from "./http-delegate.js";
import { parseProposal } from "./parse-proposal.js";
import { registerSecret } from "../../runtime/known-secrets.js";

/**
 * Options of {@link OpenAICompatibleDelegate}: the HTTP backends' shared options ({@link HttpDelegateOptions}, the
 * same names and defaults), plus the model and the API key.
 */
export interface OpenAICompatibleDelegateOptions extends HttpDelegateOptions {
  /** The server's base URL, with or without `/v1` (Ollama: `http://127.0.0.1:11434/v1`). */
  baseUrl: string;
  /** Model name sent with every request. Default `"default"`. */
  model?: string;
  /**
   * Name of the environment variable holding the API key (sent as a bearer token; never logged or traced).
   * Default `"OPENAI_API_KEY"`; no key is sent when the variable is unset.
   */
  apiKeyEnv?: string;
  /** Backend name in proposals and traces. Default `"openai"`. */
  name?: string;
  /** `top_logprobs` (most servers allow up to 20). Default 20. */
  topLogprobs?: number;
  /** `max_tokens`. Default 512. */
  maxOutputTokens?: number;
}

interface ChatAnswer {
  choices?: {
    message?: { content?: string | null };
    logprobs?: { content?: TokenLogprob[] | null } | null;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
  };
}

interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number }[];
}

/**
 * A delegate for any `/v1/chat/completions` server — Ollama, vLLM, LM Studio, hosted APIs — constrained with
 * `response_format: { type: "json_schema", strict: true }`. Confidence comes from `logprobs` where the server
 * returns them (see {@link textChoiceConfidence}), else it is `null`. The API key is read from the environment
 * when the request is made and only ever put in the `authorization` header. Deadline, abort, `close()`, retries
 * and error mapping come from the HTTP backends' base, {@link HttpDelegate}.
 */
export class OpenAICompatibleDelegate extends HttpDelegate {
  readonly #url: string;
  readonly #model: string;
  readonly #apiKeyEnv: string;

  constructor(options: OpenAICompatibleDelegateOptions) {
    super(options, { name: "openai", topLogprobs: 20 });
    this.#url = /\/v\d+$/.test(this.baseUrl)
      ? `${this.baseUrl}/chat/completions`
      : `${this.baseUrl}/v1/chat/completions`;
    this.#model = options.model ?? "default";
    this.#apiKeyEnv = options.apiKeyEnv ?? "OPENAI_API_KEY";
  }

  protected async complete({ request, schema, messages, signal }: HttpProposeCall) {
    const key = process.env[this.#apiKeyEnv];
    // A server may echo the key back in an error body: it is redacted wherever it would be written.
    registerSecret(key);
    const { confidence: measure, topLogprobs } = this.settings;
    const answer = (await this.post(
      this.#url,
      {
        model: this.#model,
        messages,
        temperature: this.settings.temperature,
        max_tokens: this.settings.maxOutputTokens,
        response_format: { type: "json_schema", json_schema: { name: "proposal", strict: true, schema } },
        ...(measure ? { logprobs: true, top_logprobs: topLogprobs } : {}),
      },
      signal,
      key ? { authorization: `Bearer ${key}` } : {},
    )) as ChatAnswer;
    const choice = answer.choices?.[0];
    const raw = choice?.message?.content ?? "";
    const parsed = parseProposal(this.name, raw);
    const logprobs = choice?.logprobs?.content;
    const names = request.tools.map((t) => t.name);
    const confidence = logprobs ? textChoiceConfidence(raw, logprobs, names, parsed.name) : null;
    const usage: Proposal["usage"] = {};
    if (answer.usage?.prompt_tokens !== undefined) usage.inputTokens = answer.usage.prompt_tokens;
    if (answer.usage?.completion_tokens !== undefined) usage.outputTokens = answer.usage.completion_tokens;
    const cached = answer.usage?.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined) usage.cachedInputTokens = cached;
    return { ...parsed, confidence, usage };
  }
}

/**
 * The choice confidence from OpenAI-style `logprobs` (token *texts* and their top alternatives, no ids): walk the
 * generated tokens from the decision point; at each one, the alternatives are grouped by the candidate values
 * (`"name"` JSON strings and `null`) their text is consistent with, and the chosen candidate's factor is the
 * mass consistent with it over the mass consistent with any remaining candidate. The walk stops once only the
 * chosen candidate remains, so forced tokens never dilute it. Approximate where tokenisations differ (texts are
 * compared, not ids); `null` when the answer or the logprobs do not line up.
 */
export function textChoiceConfidence(
  text: string,
  logprobs: readonly TokenLogprob[],
  names: readonly string[],
  chosen: string | null,
): number | null {
  const offset = decisionOffset(text);
  if (offset === undefined) return null;
  const values = new Map<string | null, string>([
    ...names.map((n) => [n, JSON.stringify(n)] as const),
    [null, "null"],
  ]);
  const chosenText = values.get(chosen);
  if (chosenText === undefined) return null;
  let position = 0;
  let remaining = [...values.keys()];
  let confidence = 1;
  for (const entry of logprobs) {
    const start = position;
    position += entry.token.length;
    if (position <= offset) continue;
    // Text of the value before this token (tokens may straddle the decision point).
    const before = text.slice(Math.max(offset, 0), Math.max(start, offset));
    const cut = Math.max(0, offset - start);
    const consistent = (token: string, key: string | null) => {
      const value = values.get(key)!;
      const piece = before + token.slice(cut);
      return value.startsWith(piece) || piece.startsWith(value);
    };
    const alternatives = entry.top_logprobs?.length
      ? entry.top_logprobs
      : [{ token: entry.token, logprob: entry.logprob }];
    let own = 0;
    let total = 0;
    for (const alt of alternatives) {
      const p = Math.exp(alt.logprob);
      if (remaining.some((k) => consistent(alt.token, k))) total += p;
      if (consistent(alt.token, chosen)) own += p;
    }
    if (total > 0) confidence *= own / total;
    remaining = remaining.filter((k) => consistent(entry.token, k));
    if (remaining.length <= 1 || before.length + entry.token.length - cut >= chosenText.length) break;
  }
  return remaining.includes(chosen) ? confidence : null;
}
