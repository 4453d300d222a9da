import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  loadProviderSdk,
  mergeBackends,
  registerProvider,
  resolveBackend,
  type BackendSpec,
} from "./backend.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { mockModel } from "./mock-model.js";

/** A real HTTP server speaking `/v1/chat/completions`, recording what it receives. */
function chatServer() {
  const requests: { url: string; headers: IncomingHttpHeaders; body: any }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw);
      requests.push({ url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "cmpl-1",
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: `served by ${body.model}` },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
        }),
      );
    });
  });
  return {
    requests,
    start: () =>
      new Promise<string>((r) =>
        server.listen(0, "127.0.0.1", () =>
          r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`),
        ),
      ),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("resolveBackend", () => {
  it("splits call settings from provider options and resolves registered providers", () => {
    const r = resolveBackend({ provider: "mock", model: "mock-small", temperature: 0, maxOutputTokens: 64 });
    expect(r.model.modelId).toBe("mock-small");
    expect(r.model.provider).toBe("mock");
    expect(r.settings).toEqual({ temperature: 0, maxOutputTokens: 64 });
    expect(resolveBackend("mock").model.modelId).toBe("mock-1");
  });

  it("accepts a model instance, with call settings", () => {
    const m = mockModel({ modelId: "mine" });
    expect(resolveBackend(m).model).toBe(m);
    expect(resolveBackend({ model: m, temperature: 0.2 }).settings).toEqual({ temperature: 0.2 });
    // v4's reasoning effort is a call setting, not a provider option.
    expect(resolveBackend({ model: m, reasoning: "low" }).settings).toEqual({ reasoning: "low" });
    expect(() => resolveBackend({ model: m, baseURL: "http://x" })).toThrowError(
      /configure a provider, but the backend is a model instance/,
    );
  });

  it("names what is missing", () => {
    expect(() => resolveBackend({ model: "x" })).toThrowError(/needs `provider` \(one of/);
    expect(() => resolveBackend({ provider: "openai-compatible", model: "x" })).toThrowError(
      /needs `baseURL`/,
    );
    expect(() => resolveBackend({ provider: "ollama" })).toThrowError(/`ollama` needs `model`/);
  });

  it("lets users register their own providers", () => {
    registerProvider("in-house", ({ model }) => mockModel({ modelId: `in-house/${model}` }));
    expect(resolveBackend({ provider: "in-house", model: "a" }).model.modelId).toBe("in-house/a");
  });
});

describe("mergeBackends", () => {
  it("merges call-site options over the sub-agent's for the same provider; the call site wins", () => {
    const own = {
      provider: "openai-compatible",
      baseURL: "http://a/v1",
      apiKey: "key-a",
      model: "big",
      temperature: 0.7,
    };
    expect(mergeBackends(own, { model: "small", temperature: 0 })).toEqual({
      ...own,
      model: "small",
      temperature: 0,
    });
    expect(mergeBackends(own, { provider: "openai-compatible", topP: 0.5 })).toEqual({ ...own, topP: 0.5 });
  });

  it("rebuilds another provider's configuration from the call site alone", () => {
    const own = { provider: "openai", apiKey: "sk-a", baseURL: "http://a/v1", model: "gpt-4o" };
    expect(mergeBackends(own, { provider: "anthropic", model: "claude-haiku-4-5" })).toEqual({
      provider: "anthropic",
      model: "claude-haiku-4-5",
    });
    expect(mergeBackends(own, "mock")).toEqual({ provider: "mock" });
  });

  it("keeps a model instance when the call site only changes settings, and never mutates", () => {
    const m = mockModel();
    expect(mergeBackends(m, { temperature: 0 })).toEqual({ model: m, temperature: 0 });
    expect(() => mergeBackends(m, { model: "other" })).toThrowError(/name the `provider` too/);
    const own = Object.freeze({ provider: "mock", model: "a" });
    expect(() => mergeBackends(own, { model: "b" })).not.toThrow();
  });
});

describe("backends at the call site, over real HTTP", () => {
  const a = chatServer();
  const b = chatServer();
  let urlA = "";
  let urlB = "";
  beforeAll(async () => {
    urlA = await a.start();
    urlB = await b.start();
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  function agents(siteBackend: BackendSpec) {
    const ownBackend = {
      provider: "openai-compatible",
      baseURL: urlA,
      apiKey: "key-vendor-a",
      headers: { "x-vendor": "a" },
      model: "big-model",
      temperature: 0.7,
    };
    const sub = defineAgent({
      name: "Summarizer",
      backend: ownBackend,
      delegations: [
        delegation("summarize", { description: "Summarize text", input: z.object({ text: z.string() }) }),
      ],
      actions: { summarize: ({ text }: { text: string }) => text },
    });
    const parent = defineAgent({
      name: "Parent",
      backend: mockModel({
        replies: [{ toolCalls: [{ toolName: "summarize", input: { text: "long text" } }] }, "done"],
      }),
      delegateTo: [delegateTo(sub, { backend: siteBackend })],
      actions: { go: () => "go" },
    });
    return { sub, parent, ownBackend };
  }

  it("sends a contract's declared output as a json_schema response format (openai-compatible default)", async () => {
    const { model } = resolveBackend({ provider: "openai-compatible", baseURL: urlA, model: "m" });
    const schema = {
      type: "object" as const,
      properties: { n: { type: "number" as const } },
      required: ["n"],
    };
    await model.doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }],
      responseFormat: { type: "json", schema, name: "count_result" },
    });
    expect(a.requests.at(-1)!.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "count_result", schema },
    });
  });

  it("same provider: options merge, the call site wins, the vendor's host and key stay", async () => {
    const { parent, sub, ownBackend } = agents({ model: "small-model", temperature: 0 });
    const before = structuredClone(ownBackend);
    const r = await parent.run("go");
    const req = a.requests.at(-1)!;
    expect(req.body.model).toBe("small-model");
    expect(req.body.temperature).toBe(0);
    expect(req.headers.authorization).toBe("Bearer key-vendor-a");
    expect(r.steps[0]!.toolResults[0]!.output).toBe("served by small-model");
    expect(r.ledgers.summarize!.tokens).toBe(14);
    expect(sub.backend).toEqual(before); // the sub-agent's definition is never mutated
  });

  it("another provider: configuration rebuilt, nothing of the old vendor leaks", async () => {
    const { parent } = agents({ provider: "ollama", baseURL: urlB, model: "local-model" });
    await parent.run("go");
    const req = b.requests.at(-1)!;
    expect(req.body.model).toBe("local-model");
    expect(req.body.temperature).toBeUndefined();
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers["x-vendor"]).toBeUndefined();
  });
});

describe("a provider SDK that is not installed", () => {
  it("is named with the command that installs it (the hosted providers are optional peers)", () => {
    expect(() => loadProviderSdk("@ai-sdk/not-installed-here")).toThrow(
      /needs the package @ai-sdk\/not-installed-here, which is not installed: `npm install @ai-sdk\/not-installed-here`/,
    );
    expect(loadProviderSdk("@ai-sdk/openai")).toHaveProperty("createOpenAI");
  });
});
