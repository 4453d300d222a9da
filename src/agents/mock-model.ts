import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import type { JsonSchema } from "../schema/json-schema.js";
import { synthesizeValue } from "./synthesize-value.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";

/** One scripted answer of the mock model. */
export interface MockReply {
  text?: string;
  /** Tool calls; `rawInput` sends the arguments exactly as written (say, text that is not JSON) instead of `input`. */
  toolCalls?: { toolName: string; input?: unknown; rawInput?: string }[];
}

/** What a mock responder sees of a request. */
export interface MockRequest {
  options: LanguageModelV4CallOptions;
  /** How many assistant turns the conversation already has (0 on the first step). */
  step: number;
  /** The text of the last user message. */
  userText: string;
  /** Results of the tool calls of the previous step. */
  toolResults: { toolName: string; output: unknown }[];
  tools: LanguageModelV4FunctionTool[];
}

/** Options of {@link mockModel}. */
export interface MockModelOptions {
  /** Default `"mock-1"`. Used for pricing lookups like any model id. */
  modelId?: string;
  /** Scripted replies, one per step of a conversation (a string is a text answer). */
  replies?: (MockReply | string)[];
  /** Computes a reply; wins over `replies`. */
  respond?: (request: MockRequest) => MockReply | string | Promise<MockReply | string>;
  /** Waits this long (ms) before answering; the wait ends early, with the abort reason, when the request is aborted. Default 0. */
  latencyMs?: number;
}

/** A {@link LanguageModelV4} that runs offline; `calls` records every request it received. */
export interface MockModel extends LanguageModelV4 {
  readonly calls: LanguageModelV4CallOptions[];
}

/**
 * A deterministic, offline model that counts tokens, so budgets and ledgers can be tested with the contract
 * exactly as in production.
 *
 * Without a script it behaves like a diligent small model: on the first step it calls every tool it is offered
 * once (with arguments made up from the tool's schema and the last paragraph of the user's message); then it answers — with JSON that
 * fits the requested `responseFormat` schema (an `enum` picks the value named in the message, else the first), a
 * summary of the tool results, or the message in pig latin. Tokens are counted as runs of letters and digits
 * plus each other non-space character, over every part of the request (system, messages, tool schemas) and of
 * the answer.
 */
export function mockModel(options: MockModelOptions = {}): MockModel {
  const calls: LanguageModelV4CallOptions[] = [];
  const modelId = options.modelId ?? "mock-1";
  const generate = async (call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
    calls.push(call);
    if (options.latencyMs) await sleep(options.latencyMs, call.abortSignal);
    call.abortSignal?.throwIfAborted();
    const request = toRequest(call);
    let reply: MockReply | string;
    if (options.respond) reply = await options.respond(request);
    else if (options.replies) {
      const scripted = options.replies[request.step];
      if (scripted === undefined)
        throw new InvalidOptionError(
          "replies",
          `a scripted reply for step ${request.step} of mock model "${modelId}"`,
          undefined,
        );
      reply = scripted;
    } else reply = defaultReply(request);
    const normalized: MockReply = typeof reply === "string" ? { text: reply } : reply;
    const content: LanguageModelV4Content[] = [];
    if (normalized.text) content.push({ type: "text", text: normalized.text });
    (normalized.toolCalls ?? []).forEach((tc, i) =>
      content.push({
        type: "tool-call",
        toolCallId: `call_${request.step}_${i}`,
        toolName: tc.toolName,
        input: tc.rawInput ?? JSON.stringify(tc.input ?? {}),
      }),
    );
    const inputTokens = countTokens(promptText(call));
    const outputTokens = countTokens(
      (normalized.text ?? "") +
        (normalized.toolCalls ?? [])
          .map((tc) => tc.toolName + (tc.rawInput ?? JSON.stringify(tc.input ?? {})))
          .join(""),
    );
    const hasCalls = (normalized.toolCalls ?? []).length > 0;
    return {
      content,
      finishReason: { unified: hasCalls ? "tool-calls" : "stop", raw: hasCalls ? "tool_calls" : "stop" },
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
      },
      response: { id: `mock-${calls.length}`, modelId, timestamp: new Date(0) },
      warnings: [],
    };
  };
  return {
    specificationVersion: "v4",
    provider: "mock",
    modelId,
    supportedUrls: {},
    calls,
    doGenerate: generate,
    async doStream(call) {
      const result = await generate(call);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const part of result.content) {
        if (part.type === "text") {
          parts.push(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: part.text },
            { type: "text-end", id: "t" },
          );
        } else if (part.type === "tool-call") parts.push(part);
      }
      parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
      return {
        stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }),
      };
    },
  };
}

/** Counts tokens the way the mock model does: runs of letters/digits, plus every other non-space character. */
export function countTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

function defaultReply(request: MockRequest): MockReply {
  const { options, tools, step } = request;
  const choice = options.toolChoice?.type ?? "auto";
  if (tools.length > 0 && choice !== "none" && (step === 0 || choice === "required" || choice === "tool")) {
    const chosen =
      options.toolChoice?.type === "tool"
        ? tools.filter((t) => t.name === (options.toolChoice as { toolName: string }).toolName)
        : choice === "required" && step > 0
          ? tools.slice(0, 1)
          : tools;
    return {
      toolCalls: chosen.map((t) => ({
        toolName: t.name,
        input: synthesizeValue(t.inputSchema as JsonSchema, lastParagraph(request.userText)),
      })),
    };
  }
  const format = options.responseFormat;
  if (format?.type === "json" && format.schema)
    return {
      text: JSON.stringify(synthesizeValue(format.schema as JsonSchema, lastParagraph(request.userText))),
    };
  if (request.toolResults.length > 0) {
    return {
      text: `Based on ${request.toolResults.map((r) => `${r.toolName}: ${JSON.stringify(r.output)}`).join("; ")}`,
    };
  }
  return { text: pigLatin(request.userText) };
}

function toRequest(options: LanguageModelV4CallOptions): MockRequest {
  const prompt = options.prompt;
  const step = prompt.filter((m) => m.role === "assistant").length;
  let userText = "";
  for (const m of prompt)
    if (m.role === "user") userText = m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  const toolResults: MockRequest["toolResults"] = [];
  const last = prompt[prompt.length - 1];
  if (last?.role === "tool") {
    for (const part of last.content) {
      if (part.type === "tool-result")
        toolResults.push({
          toolName: part.toolName,
          output: "value" in part.output ? part.output.value : part.output,
        });
    }
  }
  const tools = (options.tools ?? []).filter((t): t is LanguageModelV4FunctionTool => t.type === "function");
  return { options, step, userText, toolResults, tools };
}

function promptText(options: LanguageModelV4CallOptions): string {
  const pieces: string[] = [];
  for (const m of options.prompt) {
    if (m.role === "system") pieces.push(m.content);
    else {
      for (const part of m.content) {
        if (part.type === "text" || part.type === "reasoning") pieces.push(part.text);
        else if (part.type === "tool-call") pieces.push(part.toolName, JSON.stringify(part.input));
        else if (part.type === "tool-result") pieces.push(JSON.stringify(part.output));
      }
    }
  }
  for (const t of options.tools ?? [])
    if (t.type === "function") pieces.push(t.name, t.description ?? "", JSON.stringify(t.inputSchema));
  if (options.responseFormat?.type === "json" && options.responseFormat.schema)
    pieces.push(JSON.stringify(options.responseFormat.schema));
  return pieces.join(" ");
}

function lastParagraph(text: string): string {
  return (
    text
      .trim()
      .split(/\n\s*\n/)
      .at(-1) ?? ""
  );
}

/** "How do I reset my password?" → "Owhay oday Iway esetray myay asswordpay?" */
export function pigLatin(text: string): string {
  return text.replace(/[A-Za-z0-9]+/g, (word) => {
    const lower = word.toLowerCase();
    const cap = word[0] !== lower[0];
    const i = lower.search(/[aeiou]/);
    const moved = i <= 0 ? lower + (i === 0 ? "way" : "ay") : lower.slice(i) + lower.slice(0, i) + "ay";
    return cap ? moved[0]!.toUpperCase() + moved.slice(1) : moved;
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
