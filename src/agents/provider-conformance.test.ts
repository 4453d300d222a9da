import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll } from "vitest";
import { providerSuite } from "../../test/provider-suite.js";
import { mockModel, type MockReply } from "./mock-model.js";

const normalize = (reply: MockReply | string | undefined): MockReply =>
  reply === undefined ? { text: "(no scripted reply)" } : typeof reply === "string" ? { text: reply } : reply;
const stepOf = (prompt: { role: string }[]) => prompt.filter((m) => m.role === "assistant").length;
const argsOf = (tc: NonNullable<MockReply["toolCalls"]>[number]) =>
  tc.rawInput ?? JSON.stringify(tc.input ?? {});

// Our mock model, as an instance and through the provider registry.
providerSuite({
  name: "mockModel (instance)",
  scripted: (replies) => mockModel({ replies }),
  hanging: () => mockModel({ latencyMs: 600_000 }),
  reportsUsage: true,
});
providerSuite({
  name: 'registry { provider: "mock" }',
  scripted: (replies) => ({ provider: "mock", model: "mock-scripted", replies }),
  hanging: () => ({ provider: "mock", latencyMs: 600_000 }),
  reportsUsage: true,
});

// The AI SDK's own mock model (ai/test), scripted through doGenerate as a user would.
providerSuite({
  name: "AI SDK MockLanguageModelV3",
  scripted: (replies) =>
    new MockLanguageModelV3({
      doGenerate: async (options: LanguageModelV3CallOptions) => {
        const reply = normalize(replies[stepOf(options.prompt)]);
        const content: LanguageModelV3Content[] = [];
        if (reply.text) content.push({ type: "text", text: reply.text });
        (reply.toolCalls ?? []).forEach((tc, i) =>
          content.push({ type: "tool-call", toolCallId: `c${i}`, toolName: tc.toolName, input: argsOf(tc) }),
        );
        const calls = content.some((p) => p.type === "tool-call");
        return {
          content,
          finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
          usage: {
            inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 4, text: 4, reasoning: 0 },
          },
          warnings: [],
        };
      },
    }),
  hanging: () =>
    new MockLanguageModelV3({
      doGenerate: (options) =>
        new Promise((_resolve, reject) =>
          options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal!.reason)),
        ),
    }),
  reportsUsage: true,
});

// The openai-compatible provider over real HTTP, against a local server that speaks /v1/chat/completions
// (hosted APIs are the one thing tests may stand in for). The model name picks the script.
const scripts = new Map<string, (MockReply | string)[]>();
const hung: ServerResponse[] = [];
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw) as { model: string; messages: { role: string }[] };
    if (body.model === "hang") return void hung.push(res);
    const reply = normalize(scripts.get(body.model)?.[stepOf(body.messages)]);
    const toolCalls = (reply.toolCalls ?? []).map((tc, i) => ({
      id: `call_${i}`,
      type: "function",
      function: { name: tc.toolName, arguments: argsOf(tc) },
    }));
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        id: "cmpl",
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.text ?? null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls.length ? "tool_calls" : "stop",
          },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
      }),
    );
  });
});
let baseURL = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const res of hung) res.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});
providerSuite({
  name: 'registry { provider: "openai-compatible" } over HTTP',
  scripted: (replies) => {
    const model = `script-${scripts.size}`;
    scripts.set(model, replies);
    // Resolved lazily by the agent, after beforeAll has bound the port.
    return {
      provider: "openai-compatible",
      model,
      get baseURL() {
        return baseURL;
      },
    };
  },
  hanging: () => ({
    provider: "openai-compatible",
    model: "hang",
    get baseURL() {
      return baseURL;
    },
  }),
  reportsUsage: true,
});
