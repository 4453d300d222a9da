import { DelegateBackendError, InvalidOptionError } from "../../errors/index.js";
import { deadline } from "../../runtime/deadline.js";
import type { JsonSchema } from "../../schema/json-schema.js";
import { buildPrompt } from "../../runtime/tool-call-prompt.js";
import { buildProposalSchema } from "../proposal-schema.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../protocol.js";
import { abortError } from "./abort-error.js";
import { postJson } from "./http-json.js";

/** The options every HTTP backend takes (llama-server, OpenAI-compatible), with the same names and defaults. */
export interface HttpDelegateOptions {
  /** The server's base URL. */
  baseUrl: string;
  /** Backend name in proposals and traces. */
  name?: string;
  /** Most candidate tools. Default 5. */
  maxTools?: number;
  /** Most characters of instruction + facts. Default 4000. */
  maxInputChars?: number;
  /** Whole-proposal deadline (all requests together); the request is aborted when it passes. Default 30 000. */
  timeoutMs?: number;
  /**
   * Measure the choice confidence from the server's token probabilities (else confidence is null). The same
   * option as every backend's. Default true.
   */
  confidence?: boolean;
  /** How many top next-token probabilities to ask for (the backend's own default: what its servers allow). */
  topLogprobs?: number;
  /** Extra attempts after a connection error (never after an HTTP answer). Default 2. */
  retries?: number;
  /** Most generated tokens. Default 512. */
  maxOutputTokens?: number;
  /** Sampling temperature; 0 (the default) is greedy. */
  temperature?: number;
}

/** What an HTTP backend runs with, every option set. */
export type HttpDelegateSettings = Required<Omit<HttpDelegateOptions, "baseUrl" | "name">>;

/** The one defaults object of the HTTP backends (each names only its `name` and `topLogprobs`). */
export const HTTP_DELEGATE_DEFAULTS: Readonly<Omit<HttpDelegateSettings, "topLogprobs">> = Object.freeze({
  maxTools: 5,
  maxInputChars: 4000,
  timeoutMs: 30_000,
  confidence: true,
  retries: 2,
  maxOutputTokens: 512,
  temperature: 0,
});

/** One proposal call as a backend's {@link HttpDelegate.complete} gets it. */
export interface HttpProposeCall {
  request: ProposeRequest;
  /** The proposal schema (the request's, else built from its tools). */
  schema: JsonSchema;
  /** The rendered prompt. */
  system: string;
  user: string;
  /** The prompt as chat messages: the system part, each worked example's exchange, then the task. */
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  /** Fires on the caller's abort, the deadline (`timeoutMs`) or `close()`. */
  signal: AbortSignal;
}

/**
 * The base of the HTTP delegate backends: option checks and the one defaults object, the whole-proposal
 * deadline, the caller's abort and `close()` (in-flight requests aborted, later ones refused), JSON requests with
 * retries on connection errors, and the error mapping — every failure is a {@link DelegateBackendError} (an
 * abort or timeout as `DELEGATE_ABORTED` / `DELEGATE_TIMEOUT`, whatever a backend's own code threw when its
 * signal fired). A backend implements only {@link HttpDelegate.complete}: its request and response format.
 */
export abstract class HttpDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  /** The base URL, without a trailing `/`. */
  protected readonly baseUrl: string;
  protected readonly settings: HttpDelegateSettings;
  #closed = false;
  readonly #inflight = new Set<AbortController>();

  protected constructor(options: HttpDelegateOptions, own: { name: string; topLogprobs: number }) {
    if (typeof options?.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
      throw new InvalidOptionError("baseUrl", "an http(s) URL", options?.baseUrl);
    }
    for (const key of ["maxTools", "maxInputChars", "timeoutMs", "topLogprobs", "maxOutputTokens"] as const) {
      const v = options[key];
      if (v !== undefined && (!Number.isInteger(v) || v < 1))
        throw new InvalidOptionError(key, "an integer >= 1", v);
    }
    if (options.retries !== undefined && (!Number.isInteger(options.retries) || options.retries < 0)) {
      throw new InvalidOptionError("retries", "an integer >= 0", options.retries);
    }
    const t = options.temperature;
    if (t !== undefined && (typeof t !== "number" || !Number.isFinite(t) || t < 0 || t > 2)) {
      throw new InvalidOptionError("temperature", "a number from 0 to 2", t);
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.name = options.name ?? own.name;
    const set = <K extends keyof HttpDelegateSettings>(key: K, fallback: HttpDelegateSettings[K]) =>
      (options[key] as HttpDelegateSettings[K] | undefined) ?? fallback;
    this.settings = {
      maxTools: set("maxTools", HTTP_DELEGATE_DEFAULTS.maxTools),
      maxInputChars: set("maxInputChars", HTTP_DELEGATE_DEFAULTS.maxInputChars),
      timeoutMs: set("timeoutMs", HTTP_DELEGATE_DEFAULTS.timeoutMs),
      confidence: set("confidence", HTTP_DELEGATE_DEFAULTS.confidence),
      topLogprobs: set("topLogprobs", own.topLogprobs),
      retries: set("retries", HTTP_DELEGATE_DEFAULTS.retries),
      maxOutputTokens: set("maxOutputTokens", HTTP_DELEGATE_DEFAULTS.maxOutputTokens),
      temperature: set("temperature", HTTP_DELEGATE_DEFAULTS.temperature),
    };
    this.maxTools = this.settings.maxTools;
    this.maxInputChars = this.settings.maxInputChars;
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    if (this.#closed) throw new DelegateBackendError(this.name, `${this.name} is closed`);
    const controller = new AbortController();
    this.#inflight.add(controller);
    const limit = deadline(
      request.signal ? AbortSignal.any([controller.signal, request.signal]) : controller.signal,
      this.settings.timeoutMs,
    );
    const signal = limit.signal;
    try {
      const { system, turns, user } = buildPrompt(request);
      const schema = request.schema ?? buildProposalSchema(request.tools);
      const messages: HttpProposeCall["messages"] = [
        { role: "system", content: system },
        ...turns.flatMap((t) => [
          { role: "user" as const, content: t.user },
          { role: "assistant" as const, content: t.assistant },
        ]),
        { role: "user", content: user },
      ];
      const answer = await this.complete({ request, schema, system, user, messages, signal });
      return { ...answer, backend: this.name, latencyMs: performance.now() - started };
    } catch (error) {
      if (DelegateBackendError.isInstance(error)) throw error;
      if (signal.aborted) throw abortError(this.name, signal);
      throw new DelegateBackendError(
        this.name,
        `${this.name}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    } finally {
      limit.clear();
      this.#inflight.delete(controller);
    }
  }

  /** Aborts proposals in flight and refuses new ones. The server itself is not ours to stop. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const c of this.#inflight) c.abort(new DelegateBackendError(this.name, `${this.name} was closed`));
    this.#inflight.clear();
  }

  /** The backend's request and response: one proposal, less its `backend` and `latencyMs`. */
  protected abstract complete(call: HttpProposeCall): Promise<Omit<Proposal, "backend" | "latencyMs">>;

  /** POSTs JSON to `url` (absolute, or a path under `baseUrl`) with the backend's retries and error mapping. */
  protected post(
    url: string,
    body: unknown,
    signal: AbortSignal,
    headers?: Record<string, string>,
  ): Promise<unknown> {
    return postJson({
      backend: this.name,
      url: /^https?:\/\//.test(url) ? url : this.baseUrl + url,
      body,
      signal,
      retries: this.settings.retries,
      ...(headers ? { headers } : {}),
    });
  }
}
