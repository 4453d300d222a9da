import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runPlan } from "../compose/index.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { Pricing } from "./pricing.js";

Pricing.register("retry-ten", { input: 1_000_000, output: 1_000_000 }); // 1 USD per token: cost = tokens

/**
 * Every request costs exactly 10 tokens (and 10 USD). `answer(n)` gives the text of the n-th request (0-based);
 * with `delegateFirst`, a conversation's first step calls the first tool offered instead.
 */
function tenTokens(answer: (n: number) => string, delegateFirst = false) {
  let n = 0;
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "test",
    modelId: "retry-ten",
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions) {
      const step = options.prompt.filter((m) => m.role === "assistant").length;
      const tool = options.tools?.[0];
      const content =
        delegateFirst && step === 0 && tool
          ? [{ type: "tool-call" as const, toolCallId: `c${n++}`, toolName: tool.name, input: '{"q":"x"}' }]
          : [{ type: "text" as const, text: answer(n++) }];
      return {
        content,
        finishReason: { unified: "stop" as const, raw: undefined },
        usage: {
          inputTokens: { total: 7, noCache: 7, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 3, text: 3, reasoning: 0 },
        },
        warnings: [],
      };
    },
    doStream: () => Promise.reject(new Error("not used")),
  };
  return model;
}

const verdict = z.object({ ok: z.boolean() });
const retried = (attempts: number) => ({
  name: "retried",
  nodes: [
    {
      id: "check",
      type: "agent",
      agent: "checker",
      input: {},
      store_as: "check",
      retry: { max_attempts: attempts },
    },
  ],
});

describe("an agent node with retry", () => {
  it("keeps every attempt's spend in the manifest, the failed ones too", async () => {
    // Attempts 1 and 2 answer text that is not the declared JSON (InvalidResultError); attempt 3 answers it.
    const checker = defineAgent({
      name: "Checker",
      backend: tenTokens((n) => (n < 2 ? "not json" : '{"ok":true}')),
      actions: { check: () => ({ prompt: "check", returns: verdict }) },
    });
    const m = await runPlan(retried(3), { tools: [], agents: { checker } });
    expect(m.status).toBe("completed");
    expect(m.artifacts.check).toEqual({ ok: true });
    expect(m.nodes.check!.attempts).toBe(3);
    expect(m.nodes.check!.spend).toMatchObject({ calls: 0, tokens: 30, cost: 30 });
  });

  it("shows the spend of a node whose attempts all failed", async () => {
    const checker = defineAgent({
      name: "Checker",
      backend: tenTokens(() => "never json"),
      actions: { check: () => ({ prompt: "check", returns: verdict }) },
    });
    const m = await runPlan(retried(2), { tools: [], agents: { checker } });
    expect(m.status).toBe("failed");
    expect(m.nodes.check!.errors[0]!.code).toBe("INVALID_RESULT");
    expect(m.nodes.check!.spend).toMatchObject({ calls: 0, tokens: 20, cost: 20 });
  });

  it("counts the delegated calls (and their tokens) of failed attempts", async () => {
    const helper = defineAgent({
      name: "Helper",
      backend: tenTokens(() => "helped"),
      delegations: [delegation("ask", { description: "Ask", input: z.object({ q: z.string() }) })],
      actions: { ask: ({ q }: { q: string }) => q },
    });
    // Each attempt: a request that delegates once (10 + the helper's 10), then one that answers badly (10).
    const checker = defineAgent({
      name: "Checker",
      backend: tenTokens(() => "still not json", true),
      delegateTo: [delegateTo(helper)],
      actions: { check: () => ({ prompt: "check", returns: verdict }) },
    });
    const m = await runPlan(retried(2), { tools: [], agents: { checker } });
    expect(m.status).toBe("failed");
    expect(m.nodes.check!.spend).toMatchObject({ calls: 2, tokens: 60, cost: 60 });
  });
});
