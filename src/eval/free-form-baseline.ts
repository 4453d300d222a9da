import { postJson } from "../delegate/backends/http-json.js";
import { deadline } from "../runtime/deadline.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../delegate/protocol.js";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { parseToolCalls } from "./parse-tool-calls.js";

/** Options of {@link FreeFormToolCallBaseline}. */
export interface FreeFormToolCallBaselineOptions {
  /** Where llama-server (started with `--jinja`) listens. */
  baseUrl: string;
  /** Name in records. Default `"free-form"`. */
  name?: string;
  /** Default 5. */
  maxTools?: number;
  /** Default 4000. */
  maxInputChars?: number;
  /** Whole-proposal deadline. Default 60 000. */
  timeoutMs?: number;
  /** Most generated tokens. Default 512. */
  maxOutputTokens?: number;
}

/**
 * The evaluation baseline *without* deputy: the model sees the question as a plain user message and the tools
 * through its own chat template's tool support (llama-server's `/apply-template` with `tools`, Jinja), answers
 * free-form (greedy, no grammar, no deputy prompt), and its answer is parsed as BFCL parses Qwen-style
 * function-calling output: every `<tool_call>{"name", "arguments"}</tool_call>` block is a call, no block is
 * no call (a decline). More than one call, or a block that is not JSON, is a backend error (BFCL scores both
 * wrong for call categories). Confidence is `null`: there is no choice point to score.
 *
 * Only for `deputy eval`; it is not a delegate to put in a plan.
 */
export class FreeFormToolCallBaseline implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxOutputTokens: number;

  constructor(options: FreeFormToolCallBaselineOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.name = options.name ?? "free-form";
    this.maxTools = options.maxTools ?? 5;
    this.maxInputChars = options.maxInputChars ?? 4000;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxOutputTokens = options.maxOutputTokens ?? 512;
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    const started = performance.now();
    const limit = deadline(request.signal, this.#timeoutMs);
    const signal = limit.signal;
    try {
      return await this.#propose(request, signal, started);
    } finally {
      limit.clear();
    }
  }

  async #propose(request: ProposeRequest, signal: AbortSignal, started: number): Promise<Proposal> {
    const post = (path: string, body: unknown) =>
      postJson({ backend: this.name, url: this.#baseUrl + path, body, signal, retries: 2 });
    const user = Object.keys(request.facts).length
      ? `${request.instruction}\n${JSON.stringify(request.facts)}`
      : request.instruction;
    const tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const { prompt } = (await post("/apply-template", {
      messages: [{ role: "user", content: user }],
      tools,
    })) as { prompt: string };
    const answer = (await post("/completion", {
      prompt,
      n_predict: this.#maxOutputTokens,
      temperature: 0,
      cache_prompt: true,
    })) as { content?: string };
    const raw = answer.content ?? "";
    const calls = parseToolCalls(raw);
    if (!calls.ok) throw new DelegateBackendError(this.name, calls.error, { raw });
    if (calls.calls.length > 1) {
      throw new DelegateBackendError(this.name, `answered ${calls.calls.length} calls, expected one`, {
        raw,
      });
    }
    const call = calls.calls[0];
    return {
      name: call?.name ?? null,
      arguments: call?.arguments ?? {},
      confidence: null,
      backend: this.name,
      latencyMs: performance.now() - started,
      raw,
    };
  }

  async close(): Promise<void> {}
}
