import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { BackendSpec } from "../src/agents/backend.js";
import { delegation } from "../src/agents/contract.js";
import { defineAgent } from "../src/agents/define-agent.js";
import { delegateTo } from "../src/agents/delegate-to.js";
import type { MockReply } from "../src/agents/mock-model.js";
import { defineTool } from "../src/tools/define-tool.js";

/** How one provider (a model instance or a registry entry) takes part in {@link providerSuite}. */
export interface ProviderSuiteOptions {
  name: string;
  /**
   * A backend that answers `replies` in order, one per step of a conversation (the number of assistant turns in the
   * request picks the reply; a string is a text answer).
   */
  scripted: (replies: (MockReply | string)[]) => BackendSpec;
  /** A backend whose requests never answer until they are aborted. */
  hanging: () => BackendSpec;
  /** Whether the provider reports token usage (then ledgers must count it). */
  reportsUsage: boolean;
}

const add = defineTool({
  name: "add",
  description: "a + b",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

/**
 * The conformance suite every provider the agents run on passes: the tool loop, delegation with its ledgers,
 * structured output and aborts behave the same on each — what `defineAgent` promises does not depend on which
 * provider answers.
 */
export function providerSuite(options: ProviderSuiteOptions): void {
  describe(`provider conformance: ${options.name}`, () => {
    it("answers text in one step, with its usage", async () => {
      const agent = defineAgent({
        name: "Plain",
        backend: options.scripted(["hello there"]),
        actions: { say: (x: string) => x },
      });
      const r = await agent.run("say", "hi");
      expect(r.text).toBe("hello there");
      expect(r.steps).toHaveLength(1);
      expect(r.finishReason).toBe("stop");
      if (options.reportsUsage) {
        expect(r.usage.totalTokens).toBeGreaterThan(0);
        expect(r.usage.totalTokens).toBe(r.usage.inputTokens + r.usage.outputTokens);
      }
    });

    it("runs the tool loop: a tool call is executed, its result fed back, then the answer", async () => {
      const agent = defineAgent({
        name: "Adder",
        backend: options.scripted([{ toolCalls: [{ toolName: "add", input: { a: 2, b: 3 } }] }, "five"]),
        tools: [add],
        actions: { sum: (x: string) => x },
      });
      const r = await agent.run("sum", "2 + 3?");
      expect(r.steps).toHaveLength(2);
      expect(r.steps[0]!.toolCalls).toEqual([
        expect.objectContaining({ toolName: "add", input: { a: 2, b: 3 } }),
      ]);
      expect(r.steps[0]!.toolResults[0]!.output).toBe(5);
      expect(r.text).toBe("five");
    });

    it("answers a call with arguments that are not JSON with invalid_arguments, never a crash", async () => {
      const agent = defineAgent({
        name: "Garbled",
        backend: options.scripted([{ toolCalls: [{ toolName: "add", rawInput: "{a: 2" }] }, "sorry"]),
        tools: [add],
        actions: { sum: (x: string) => x },
      });
      const r = await agent.run("sum", "2 + 3?");
      expect(r.steps[0]!.toolResults[0]!.output).toMatchObject({ error: "invalid_arguments" });
      expect(r.text).toBe("sorry");
    });

    it("delegates: the sub-agent answers on this provider and its usage rolls up into the ledgers", async () => {
      const helper = defineAgent({
        name: "Helper",
        backend: options.scripted(["helped"]),
        delegations: [
          delegation("ask", { description: "Ask the helper", input: z.object({ q: z.string() }) }),
        ],
        actions: { ask: ({ q }: { q: string }) => q },
      });
      const lead = defineAgent({
        name: "Lead",
        backend: options.scripted([{ toolCalls: [{ toolName: "ask", input: { q: "why" } }] }, "done"]),
        delegateTo: [delegateTo(helper)],
        actions: { run: (x: string) => x },
      });
      const r = await lead.run("run", "go");
      expect(r.steps[0]!.toolResults[0]!.output).toBe("helped");
      expect(r.ledgers.ask!.calls).toBe(1);
      expect(r.ledger.calls).toBe(1);
      if (options.reportsUsage) expect(r.ledgers.ask!.tokens).toBeGreaterThan(0);
    });

    it("parses and validates declared structured output", async () => {
      const verdict = z.object({ ok: z.boolean() });
      const good = defineAgent({
        name: "Judge",
        backend: options.scripted(['{"ok":true}']),
        actions: { judge: () => ({ prompt: "judge", returns: verdict }) },
      });
      expect((await good.run("judge")).data).toEqual({ ok: true });
      const bad = defineAgent({
        name: "Judge",
        backend: options.scripted(['{"ok":"maybe"}']),
        actions: { judge: () => ({ prompt: "judge", returns: verdict }) },
      });
      await expect(bad.run("judge")).rejects.toMatchObject({ code: "INVALID_RESULT" });
    });

    it("aborts a request in flight when the caller's signal fires", async () => {
      const agent = defineAgent({ name: "Hung", backend: options.hanging(), actions: { go: () => "go" } });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("caller gave up")), 50);
      const started = performance.now();
      await expect(agent.run("go", undefined, { signal: controller.signal })).rejects.toBeDefined();
      expect(performance.now() - started).toBeLessThan(10_000);
    });
  });
}
