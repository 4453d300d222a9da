import { describe, expect, it } from "vitest";
import { z } from "zod";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { mockModel } from "./mock-model.js";
import { runAgentAction } from "./run-agent-action.js";

const classifier = defineAgent({
  name: "Classifier",
  backend: { provider: "mock" },
  delegations: [
    delegation("classify", {
      description: "Classify",
      input: z.object({ body: z.string() }),
      returns: z.object({ category: z.enum(["billing", "bug"]) }),
    }),
  ],
  actions: { classify: ({ body }: { body: string }) => body },
});
const triage = defineAgent({
  name: "Triage",
  backend: { provider: "mock" },
  delegateTo: [delegateTo(classifier)],
  actions: { triage: ({ ticket }: { ticket: string }) => ticket },
});

describe("runAgentAction", () => {
  it("returns data for an action with declared output, with its spend", async () => {
    const { value, spend, result } = await runAgentAction(classifier, "classify", { body: "a bug" });
    expect(value).toEqual({ category: "bug" });
    expect(spend).toMatchObject({ calls: 0, tokens: result.usage.totalTokens, cost: 0 });
  });

  it("returns text otherwise, counting delegated calls and their tokens in the spend", async () => {
    let clock = 0;
    const { value, spend, result } = await runAgentAction(
      triage,
      "triage",
      { ticket: "billing" },
      { _internal: { now: () => (clock += 500) } },
    );
    expect(value).toBe(result.text);
    expect(spend.calls).toBe(1);
    expect(spend.tokens).toBe(result.usage.totalTokens + result.ledger.tokens);
    expect(spend.duration).toBeGreaterThan(0);
  });

  it("throws what the run throws (unknown action, aborts)", async () => {
    await expect(runAgentAction(triage, "nope", {})).rejects.toMatchObject({ code: "AGENT_DEFINITION" });
    const slow = defineAgent({
      name: "Slow",
      backend: mockModel({ latencyMs: 60_000 }),
      actions: { a: () => "x" },
    });
    const controller = new AbortController();
    const pending = runAgentAction(slow, "a", {}, { signal: controller.signal });
    controller.abort(new Error("plan cancelled"));
    await expect(pending).rejects.toThrow("plan cancelled");
  });
});
