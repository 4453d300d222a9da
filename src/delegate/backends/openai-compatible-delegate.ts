import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import { buildPrompt } from "../prompt.js";
import { buildProposalSchema } from "../proposal-schema.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { decisionOffset } from "./choice-confidence.js";
import { deadline } from "../../runtime/deadline.js";
import { postJson } from "./http-json.js";
import { parseProposal } from "./parse-proposal.js";
import { registerSecret } from "../../traces/known-secrets.js";

/** Options of {@link OpenAICompatibleDelegate}. */
export interface OpenAICompatibleDelegateOptions {
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
  /** Most candidate tools. Default 5. */
  maxTools?: number;
  /** Most characters of instruction + facts. Default 4000. */
  maxInputChars?: number;
  /** Deadline of the request; it is aborted when it passes. Default 30 000. */
  timeoutMs?: number;
  /** Ask for `logprobs` / `top_logprobs` and measure the choice from them; confidence is null without. Default true. */
  useLogprobs?: boolean;
  /** `top_logprobs` (most servers allow up to 20). Default 20. */
  topLogprobs?: number;
  /** Extra attempts after a connection error. Default 2. */
  retries?: number;
  /** `max_tokens`. Default 512. */
  maxOutputTokens?: number;
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
 * when the request is made and only ever put in the `authorization` header.
 */
export class OpenAICompatibleDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly #url: string;
  readonly #options: Required<Omit<OpenAICompatibleDelegateOptions, "baseUrl" | "name">>;
  #closed = false;
  readonly #inflight = new Set<AbortController>();

  constructor(options: OpenAICompatibleDelegateOptions) {
    if (typeof options?.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
      throw new InvalidOptionError("baseUrl", "an http(s) URL", options?.baseUrl);
    }
    for (const key of ["maxTools", "maxInputChars", "timeoutMs", "topLogprobs", "maxOutputTokens"] as const) {
      const v = options[key];
      if (v !== undefined && (!Number.isInteger(v) || v < 1))
        throw new InvalidOptionError(key, "an integer >= 1", v);
    }
    const base = options.baseUrl.replace(/\/+$/, "");
    this.#url = /\/v\d+$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
    this.name = options.name ?? "openai";
    this.maxTools = options.maxTools ?? 5;
    this.maxInputChars = options.maxInputChars ?? 4000;
    this.#options = {
      model: options.model ?? "default",
      apiKeyEnv: options.apiKeyEnv ?? "OPENAI_API_KEY",
      maxTools: this.maxTools,
      maxInputChars: this.maxInputChars,
      timeoutMs: options.timeoutMs ?? 30_000,
      useLogprobs: options.useLogprobs ?? true,
      topLogprobs: options.topLogprobs ?? 20,
      retries: options.retries ?? 2,
      maxOutputTokens: options.maxOutputTokens ?? 512,
    };
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    if (this.#closed) throw new DelegateBackendError(this.name, `${this.name} is closed`);
    const controller = new AbortController();
    this.#inflight.add(controller);
    const limit = deadline(
      request.signal ? AbortSignal.any([controller.signal, request.signal]) : controller.signal,
      this.#options.timeoutMs,
    );
    const signal = limit.signal;
    try {
      const schema = request.schema ?? buildProposalSchema(request.tools);
      const { system, user } = buildPrompt(request);
      const key = process.env[this.#options.apiKeyEnv];
      // A server may echo the key back in an error body: it is redacted wherever it would be written.
      registerSecret(key);
      const answer = (await postJson({
        backend: this.name,
        url: this.#url,
        signal,
        retries: this.#options.retries,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body: {
          model: this.#options.model,
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
          temperature: 0,
          max_tokens: this.#options.maxOutputTokens,
          response_format: { type: "json_schema", json_schema: { name: "proposal", strict: true, schema } },
          ...(this.#options.useLogprobs ? { logprobs: true, top_logprobs: this.#options.topLogprobs } : {}),
        },
      })) as {
        choices?: {
          message?: { content?: string | null };
          logprobs?: { content?: TokenLogprob[] | null } | null;
        }[];
        usage?: {
          prompt_tokens?: number;
          completion_tokens?: number;
          prompt_tokens_details?: { cached_tokens?: number };
        };
      };
      const choice = answer.choices?.[0];
      const raw = choice?.message?.content ?? "";
      const parsed = parseProposal(this.name, raw);
      const logprobs = choice?.logprobs?.content;
      const confidence = logprobs
        ? textChoiceConfidence(
            raw,
            logprobs,
            request.tools.map((t) => t.name),
            parsed.name,
          )
        : null;
      const usage: Proposal["usage"] = {};
      if (answer.usage?.prompt_tokens !== undefined) usage.inputTokens = answer.usage.prompt_tokens;
      if (answer.usage?.completion_tokens !== undefined) usage.outputTokens = answer.usage.completion_tokens;
      const cached = answer.usage?.prompt_tokens_details?.cached_tokens;
      if (cached !== undefined) usage.cachedInputTokens = cached;
      return { ...parsed, confidence, backend: this.name, latencyMs: performance.now() - started, usage };
    } finally {
      limit.clear();
      this.#inflight.delete(controller);
    }
  }

  /** Aborts proposals in flight and refuses new ones. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const c of this.#inflight) c.abort(new DelegateBackendError(this.name, `${this.name} was closed`));
    this.#inflight.clear();
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
