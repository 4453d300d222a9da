import { MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { mockModel } from "./mock-model.js";

const sub = defineAgent({
  name: "Classifier",
  backend: { provider: "mock" },
  delegations: [
    delegation("classify", {
      description: "Classify a ticket",
      input: z.object({ body: z.string() }),
      returns: z.object({ category: z.enum(["billing", "bug"]) }),
    }),
  ],
  actions: { classify: ({ body }: { body: string }) => body },
});

const weather = defineTool({
  name: "weather",
  description: "Weather in a city",
  input: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, temp: 21 }),
});

describe("agent.run", () => {
  // The current specification, and the previous major's instances (a user's own AI SDK 6 providers).
  const specifications = [
    { version: "v4", Mock: MockLanguageModelV4 },
    { version: "v3", Mock: MockLanguageModelV3 },
  ] as const;
  it.each(specifications)(
    "runs the tool loop on a model instance of the $version specification (bring your own)",
    async ({ version, Mock }) => {
      const model = new Mock({
        modelId: "byo",
        doGenerate: [
          {
            content: [
              {
                type: "tool-call",
                toolCallId: "1",
                toolName: "weather",
                input: '{"city":"Lisbon","invented":true}',
              },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 5, text: 5, reasoning: 0 },
            },
            warnings: [],
          },
          {
            content: [{ type: "text", text: "It is 21 in Lisbon." }],
            finishReason: { unified: "stop", raw: undefined },
            usage: {
              inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 7, text: 7, reasoning: 0 },
            },
            warnings: [],
          },
        ],
      });
      const agent = defineAgent({
        name: "Weather",
        backend: model,
        instructions: "Be brief.",
        tools: [weather],
        actions: { ask: ({ q }: { q: string }) => q },
      });
      const r = await agent.run("ask", { q: "Weather in Lisbon?" });
      expect(r.text).toBe("It is 21 in Lisbon.");
      expect(r.usage).toEqual({ inputTokens: 30, outputTokens: 12, totalTokens: 42 });
      expect(r.steps[0]!.toolResults[0]!.output).toEqual({ city: "Lisbon", temp: 21 }); // the invented key was dropped
      expect(r.model).toBe("mock-provider:byo");
      expect(model.specificationVersion).toBe(version);
      const [first, second] = model.doGenerateCalls;
      expect(first!.prompt[0]).toEqual({ role: "system", content: "Be brief." });
      expect(first!.tools).toEqual([
        {
          type: "function",
          name: "weather",
          description: "Weather in a city",
          inputSchema: weather.parameters,
        },
      ]);
      expect(second!.prompt.at(-1)).toEqual({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "1",
            toolName: "weather",
            output: { type: "json", value: { city: "Lisbon", temp: 21 } },
          },
        ],
      });
    },
  );

  it("returns parsed data when the action's contract declares `returns`, requesting it as structured output", async () => {
    const r = await sub.run("classify", { body: "A bug in the app" });
    expect(r.data).toEqual({ category: "bug" });
    const model = (await import("./backend.js")).resolveBackend(sub.backend).model;
    expect(model.modelId).toBe("mock-1");
  });

  it("parses the v4 answer's structuredOutputText, not the drafts before it, as the structured result", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [
          { type: "text", text: 'Draft: {"n":1}' },
          { type: "text", text: '{"n":2}' },
        ],
        structuredOutputText: '{"n":2}',
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 4, text: 4, reasoning: 0 },
        },
        warnings: [],
      },
    });
    const agent = defineAgent({
      name: "Drafter",
      backend: model,
      actions: { a: () => ({ prompt: "x", returns: z.object({ n: z.number() }) }) },
    });
    const r = await agent.run("a");
    expect(r.data).toEqual({ n: 2 });
    expect(model.doGenerateCalls[0]!.responseFormat).toMatchObject({ type: "json" });
  });

  it("throws InvalidResultError on a direct run whose answer does not fit `returns`", async () => {
    const bad = defineAgent({
      name: "Bad",
      backend: mockModel({ replies: ["not json"] }),
      actions: { a: () => ({ prompt: "x", returns: z.object({ n: z.number() }) }) },
    });
    await expect(bad.run("a")).rejects.toMatchObject({ code: "INVALID_RESULT", missing: ["n"] });
  });

  it("explains an unknown action", async () => {
    await expect(sub.run("clasify" as never)).rejects.toThrow(
      /no action `clasify` \(did you mean `classify`\?\)/,
    );
  });

  it("reports tool errors and unknown tools to the model instead of crashing", async () => {
    const failing = defineTool({
      name: "fails",
      description: "Always fails",
      input: z.object({}),
      run: () => {
        throw new Error("disk full");
      },
    });
    const model = mockModel({
      replies: [
        {
          toolCalls: [
            { toolName: "fails", input: {} },
            { toolName: "nope", input: {} },
            { toolName: "weather", input: { city: 3 } },
          ],
        },
        "ok",
      ],
    });
    const agent = defineAgent({
      name: "A",
      backend: model,
      tools: [failing, weather],
      actions: { a: () => "go" },
    });
    const r = await agent.run("a");
    const outputs = r.steps[0]!.toolResults.map((t) => t.output as any);
    expect(outputs[0]).toEqual({ error: "tool_error", message: "disk full" });
    expect(outputs[1]).toMatchObject({
      error: "unknown_tool",
      message: expect.stringContaining("Available: fails, weather"),
    });
    expect(outputs[2]).toMatchObject({ error: "invalid_arguments", issues: ["/city: must be string"] });
    expect(r.text).toBe("ok");
  });

  it("stops after maxSteps and honours a per-step toolChoice", async () => {
    const model = mockModel();
    const agent = defineAgent({
      name: "Loop",
      backend: model,
      tools: [weather],
      actions: {
        a: () => ({
          prompt: "Lisbon",
          toolChoice: ({ stepNumber }) => (stepNumber < 2 ? "required" : "none"),
          maxSteps: 2,
        }),
      },
    });
    const r = await agent.run("a");
    expect(r.finishReason).toBe("max-steps");
    expect(r.steps).toHaveLength(2);
    expect(model.calls.map((c) => c.toolChoice)).toEqual([{ type: "required" }, { type: "required" }]);
  });

  it("aborts through the caller's signal", async () => {
    const agent = defineAgent({
      name: "Slow",
      backend: mockModel({ latencyMs: 60_000 }),
      actions: { a: () => "x" },
    });
    const controller = new AbortController();
    const pending = agent.run("a", undefined, { signal: controller.signal });
    controller.abort(new Error("cancelled by user"));
    await expect(pending).rejects.toThrow("cancelled by user");
  });
});

describe("scoping delegations per action", () => {
  const model = mockModel({ replies: ["ok"] });
  const own = defineTool({ name: "lookup", description: "Look up", input: z.object({}), run: () => 1 });
  const parent = defineAgent({
    name: "Scoped",
    backend: model,
    tools: [own],
    delegateTo: [delegateTo(sub), delegateTo(sub, { as: "classify_again" })],
    actions: {
      all: () => "x",
      none: () => ({ prompt: "x", delegations: false }),
      one: () => ({ prompt: "x", delegations: ["classify_again"], tools: [weather] }),
      typo: () => ({ prompt: "x", delegations: ["clasify"] }),
      clash: () => ({
        prompt: "x",
        tools: [defineTool({ name: "classify", description: "d", input: z.object({}), run: () => 1 })],
      }),
    },
  });
  const offered = async (action: "all" | "none" | "one") => {
    await parent.run(action);
    return (model.calls.at(-1)!.tools ?? []).map((t) => t.name);
  };

  it("offers all delegations by default, none, or a named list — beside the agent's and the action's tools", async () => {
    expect(await offered("all")).toEqual(["lookup", "classify", "classify_again"]);
    expect(await offered("none")).toEqual(["lookup"]);
    expect(await offered("one")).toEqual(["lookup", "weather", "classify_again"]);
  });

  it("never sends the scoping option to the provider", async () => {
    await parent.run("one");
    expect(JSON.stringify(model.calls.at(-1))).not.toMatch(/delegations/);
  });

  it("names the known delegations for an unknown one, and refuses colliding action tools", async () => {
    await expect(parent.run("typo")).rejects.toThrow(
      /unknown delegations `clasify`\. Known: classify, classify_again/,
    );
    await expect(parent.run("clash")).rejects.toThrow(
      /tool `classify` collides with a delegation to Classifier/,
    );
  });

  it("shows what a calling model sees", () => {
    expect(parent.toolSpecs().map((t) => t.name)).toEqual(["lookup", "classify", "classify_again"]);
  });
});
