import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import type { Budget } from "./budget.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { delegateToPlan } from "../compose/index.js";
import {
  DELEGATION_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegationEvent,
  type DelegationRefusedEvent,
} from "./events.js";

/** Every request costs exactly 10 tokens; a conversation's first step calls the first tool offered, if any. */
function tenTokens(id: string, requests: string[] = []): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "test",
    modelId: id,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions) {
      requests.push(id);
      const step = options.prompt.filter((m) => m.role === "assistant").length;
      const tool = options.tools?.[0];
      const content =
        step === 0 && tool
          ? [
              {
                type: "tool-call" as const,
                toolCallId: `${id}-${requests.length}`,
                toolName: tool.name,
                input: '{"q":"x"}',
              },
            ]
          : [{ type: "text" as const, text: `${id} answered` }];
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
}

let requests: string[] = [];
const helper = () =>
  defineAgent({
    name: "Helper",
    backend: tenTokens("Helper", requests),
    delegations: [delegation("ask", { description: "Ask the helper", input: z.object({ q: z.string() }) })],
    actions: { ask: ({ q }: { q: string }) => q },
  });
/** An agent node's agent that delegates once to Helper, then answers. */
const digger = () =>
  defineAgent({
    name: "Digger",
    backend: tenTokens("Digger", requests),
    delegateTo: [delegateTo(helper())],
    actions: { dig: ({ q }: { q: string }) => q },
  });
/** An agent node's agent that only answers (one request). */
const worker = (name: string) =>
  defineAgent({ name, backend: tenTokens(name, requests), actions: { work: ({ q }: { q: string }) => q } });

const inputs = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
const digPlan = {
  name: "dig-plan",
  objective: "Dig",
  inputs,
  returns: "out",
  nodes: [{ id: "dig", type: "agent", agent: "digger", input: { q: "{inputs.q}" }, store_as: "out" }],
};
const twoStepPlan = {
  name: "two-steps",
  objective: "Work twice",
  inputs,
  returns: "second",
  nodes: [
    { id: "first", type: "agent", agent: "one", input: { q: "{inputs.q}" }, store_as: "first" },
    {
      id: "second",
      type: "agent",
      agent: "two",
      depends_on: ["first"],
      input: { q: "{inputs.q}" },
      store_as: "second",
    },
  ],
};

/** An agent whose model calls the plan's tool once, then answers. */
function lead(
  plan: object,
  agents: Record<string, unknown>,
  opts: { budget?: Budget; maxDepth?: number } = {},
) {
  return defineAgent({
    name: "Lead",
    backend: tenTokens("Lead", requests),
    delegateTo: [delegateToPlan(plan, { name: "run_plan", tools: [], agents })],
    actions: { run: (x: string) => x },
    ...opts,
  });
}

const ended: DelegationEvent[] = [];
const refused: DelegationRefusedEvent[] = [];
const onEnd = (m: unknown) => ended.push(m as DelegationEvent);
const onRefused = (m: unknown) => refused.push(m as DelegationRefusedEvent);
beforeEach(() => {
  requests = [];
  ended.length = 0;
  refused.length = 0;
  subscribe(DELEGATION_CHANNEL, onEnd);
  subscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});
afterEach(() => {
  unsubscribe(DELEGATION_CHANNEL, onEnd);
  unsubscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});

describe("agents inside a plan an agent delegated to", () => {
  it("count toward the caller's maxDepth: an agent node's own delegation is one level deeper", async () => {
    const r = await lead(digPlan, { digger: digger() }, { maxDepth: 1 }).run("run", "x");
    expect(requests).not.toContain("Helper");
    expect(refused.map((e) => `${e.tool}:${e.limit}/${e.budgetOwner}@${e.depth}`)).toEqual([
      "ask:max_depth/Lead@2",
    ]);
    expect(r.steps[0]!.toolResults[0]!.output).toBe("Digger answered");
  });

  it("run one level below the plan call, their delegations nested in it", async () => {
    const r = await lead(digPlan, { digger: digger() }, { maxDepth: 2 }).run("run", "x");
    expect(requests.filter((id) => id === "Helper")).toHaveLength(1);
    const plan = ended.find((e) => e.tool === "run_plan")!;
    const ask = ended.find((e) => e.tool === "ask")!;
    expect(ask).toMatchObject({ agent: "Digger", depth: 2, parentCallId: plan.callId, status: "ok" });
    // The plan call spent the digger's two requests and the helper's one; the ask call is nested inside it.
    expect(plan.usage.totalTokens).toBe(30);
    expect(r.ledger).toMatchObject({ calls: 2, tokens: 30 });
    expect(r.ledgers.run_plan).toMatchObject({ calls: 1, tokens: 30 });
  });

  it("spend from the caller's remaining ceiling: an agent node is not started once it is spent", async () => {
    const agents = { one: worker("One"), two: worker("Two") };
    const r = await lead(twoStepPlan, agents, { budget: { maxTokens: 10 } }).run("run", "x");
    expect(requests).toEqual(["Lead", "One", "Lead"]);
    expect(r.ledger).toMatchObject({ calls: 1, tokens: 10 });
    const answer = r.steps[0]!.toolResults[0]!.output as {
      error: string;
      errors: { nodeId: string; code: string }[];
    };
    expect(answer.error).toBe("plan_failed");
    expect(answer.errors).toContainEqual(
      expect.objectContaining({ nodeId: "second", code: "BUDGET_EXCEEDED" }),
    );
    expect(refused.map((e) => `${e.delegate}:${e.limit}/${e.scope}/${e.budgetOwner}`)).toEqual([
      "Two:max_tokens/agent/Lead",
    ]);
  });

  it("end the caller's generation when the spent budget says raise", async () => {
    const agents = { one: worker("One"), two: worker("Two") };
    const error = await lead(twoStepPlan, agents, { budget: { maxTokens: 10, onExceeded: "raise" } })
      .run("run", "x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).violation).toMatchObject({
      limit: "max_tokens",
      agent: "Lead",
      used: 10,
    });
    expect(requests).toEqual(["Lead", "One"]);
  });
});
