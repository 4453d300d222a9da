import { describe, expect, it } from "vitest";
import { defineAgent } from "./define-agent.js";
import { addUsage, normalizeUsage } from "./usage.js";

describe("normalizeUsage", () => {
  it("reads the v3 specification's nested counts", () => {
    expect(
      normalizeUsage({
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 4, text: 4, reasoning: 0 },
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 4, totalTokens: 14 });
  });

  it("reads flat counts (the v2 shape) and treats unknown counts as 0", () => {
    expect(normalizeUsage({ inputTokens: 3, outputTokens: 2, totalTokens: 6 })).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      totalTokens: 6,
    });
    expect(normalizeUsage({ inputTokens: { total: undefined }, outputTokens: undefined } as never)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(normalizeUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(
      addUsage(
        { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      ),
    ).toEqual({ inputTokens: 2, outputTokens: 3, totalTokens: 5 });
  });
});

describe("a model of the older v2 specification", () => {
  it("runs the loop too: string finish reasons and flat usage are understood", async () => {
    let step = 0;
    const v2 = {
      specificationVersion: "v2",
      provider: "legacy",
      modelId: "old-1",
      supportedUrls: {},
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [{ type: "tool-call", toolCallId: "1", toolName: "ping", input: "{}" }],
              finishReason: "tool-calls",
              usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6 },
              warnings: [],
            }
          : {
              content: [{ type: "text", text: "pong" }],
              finishReason: "stop",
              usage: { inputTokens: 7, outputTokens: 1, totalTokens: 8 },
              warnings: [],
            },
      doStream: () => Promise.reject(new Error("unused")),
    };
    const agent = defineAgent({
      name: "Legacy",
      backend: v2 as never,
      tools: [
        { name: "ping", description: "Ping", input: { type: "object", properties: {} }, run: () => "pong" },
      ],
      actions: { a: () => "ping it" },
    });
    const r = await agent.run("a");
    expect(r.text).toBe("pong");
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toEqual({ inputTokens: 12, outputTokens: 2, totalTokens: 14 });
  });
});
