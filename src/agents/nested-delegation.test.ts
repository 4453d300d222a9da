import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import type { Budget } from "./budget.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo, type DelegateToOptions } from "./delegate-to.js";
import {
  DELEGATION_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegationEvent,
  type DelegationRefusedEvent,
} from "./events.js";
import type { Agent } from "./types.js";

/** Every request costs exactly 10 tokens (7 in, 3 out); step 0 calls the first tool offered, then it answers. */
function tenTokenModel(id: string): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "test",
    modelId: id,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions) {
      const step = options.prompt.filter((m) => m.role === "assistant").length;
      const tool = options.tools?.[0];
      const last = options.prompt.at(-1);
      const content =
        step === 0 && tool
          ? [
              {
                type: "tool-call" as const,
                toolCallId: `${id}-1`,
                toolName: tool.name,
                input: '{"task":"dig"}',
              },
            ]
          : [
              {
                type: "text" as const,
                text: `${id}: ${last?.role === "tool" ? JSON.stringify(last.content[0]) : "leaf"}`,
              },
            ];
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

function chainAgent(
  name: string,
  next: Agent | undefined,
  opts: { budget?: Budget; maxDepth?: number; site?: DelegateToOptions } = {},
): Agent {
  return defineAgent({
    name,
    backend: tenTokenModel(name),
    budget: opts.budget,
    maxDepth: opts.maxDepth,
    delegations: [
      delegation("work", { description: `${name} works`, input: z.object({ task: z.string() }) }),
    ],
    delegateTo: next ? [delegateTo(next, { as: `ask_${next.name}`, ...opts.site })] : [],
    actions: { work: ({ task }: { task: string }) => task },
  });
}

/** A → B → C → D → E, each delegating to the next; `a` options go on A. */
function chain(a: { budget?: Budget; maxDepth?: number; site?: DelegateToOptions } = {}) {
  const e = chainAgent("E", undefined);
  const d = chainAgent("D", e);
  const c = chainAgent("C", d);
  const b = chainAgent("B", c);
  return chainAgent("A", b, a);
}

let delegated: DelegationEvent[] = [];
let refused: DelegationRefusedEvent[] = [];
const onDelegate = (m: unknown) => delegated.push(m as DelegationEvent);
const onRefused = (m: unknown) => refused.push(m as DelegationRefusedEvent);
beforeEach(() => {
  delegated = [];
  refused = [];
  subscribe(DELEGATION_CHANNEL, onDelegate);
  subscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});
afterEach(() => {
  unsubscribe(DELEGATION_CHANNEL, onDelegate);
  unsubscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});

describe("nested delegation", () => {
  it("refuses delegation deeper than maxDepth (default 3) with a budget_exceeded-shaped answer", async () => {
    const r = await chain().run("work", { task: "go" });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      agent: "D",
      delegate: "E",
      limit: "max_depth",
      allowed: 3,
      used: 3,
      budgetOwner: "A",
      depth: 4,
    });
    const dAnswer = delegated.find((e) => e.agent === "C")!;
    expect(dAnswer.status).toBe("ok");
    expect(r.text).toContain("max_depth");
    expect(r.text).toContain("Do not retry this tool");
  });

  it("rolls usage and calls up into every ancestor's ledger", async () => {
    const r = await chain().run("work", { task: "go" });
    // D: 2 requests (20 tokens); C: 20 + D; B: 20 + C → 60 tokens spent below A, in 3 delegated calls.
    expect(r.ledger).toMatchObject({ calls: 3, tokens: 60 });
    expect(r.ledgers.ask_B).toMatchObject({ calls: 1, tokens: 60 });
    expect(r.usage.totalTokens).toBe(20); // A's own requests
    const byAgent = Object.fromEntries(delegated.map((e) => [e.agent, e]));
    expect(byAgent.C!.usage.totalTokens).toBe(20);
    expect(byAgent.B!.usage.totalTokens).toBe(40);
    expect(byAgent.A!.usage.totalTokens).toBe(60);
    expect(byAgent.B!.ledger).toMatchObject({ calls: 2, tokens: 40 });
  });

  it("shares one trace id across parent and sub-agents, and links calls", async () => {
    const r = await chain().run("work", { task: "go" }, { traceId: "trace-1" });
    expect(r.traceId).toBe("trace-1");
    expect(new Set([...delegated, ...refused].map((e) => e.traceId))).toEqual(new Set(["trace-1"]));
    const byAgent = Object.fromEntries(delegated.map((e) => [e.agent, e]));
    expect(byAgent.A!.parentCallId).toBeUndefined();
    expect(byAgent.B!.parentCallId).toBe(byAgent.A!.callId);
    expect(byAgent.C!.parentCallId).toBe(byAgent.B!.callId);
    expect(byAgent.C!.depth).toBe(3);
  });

  it("spends from the remaining agent-wide ceiling of every ancestor", async () => {
    await chain({ budget: { maxCalls: 2 } }).run("work", { task: "go" });
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      agent: "C",
      delegate: "D",
      limit: "max_calls",
      allowed: 2,
      used: 2,
      scope: "agent",
      budgetOwner: "A",
    });
  });

  it("aborts the whole generation when an ancestor's ceiling says raise", async () => {
    const error = await chain({ budget: { maxCalls: 2, onExceeded: "raise" } })
      .run("work", { task: "go" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.violation).toEqual({
      limit: "max_calls",
      allowed: 2,
      used: 2,
      scope: "agent",
      agent: "A",
      tool: "ask_D",
    });
    expect(delegated.map((e) => [e.agent, e.status])).toEqual([
      ["B", "error"],
      ["A", "error"],
    ]);
  });

  it("spends from the ancestor's delegation limit (tokens), not only its ceiling", async () => {
    await chain({ site: { budget: { maxTokens: 15 } } }).run("work", { task: "go" });
    expect(refused[0]).toMatchObject({
      agent: "C",
      limit: "max_tokens",
      allowed: 15,
      used: 20,
      scope: "delegation",
      budgetOwner: "A",
    });
  });

  it("lets each agent limit the depth below it", async () => {
    await chain({ maxDepth: 1 }).run("work", { task: "go" });
    expect(refused[0]).toMatchObject({
      agent: "B",
      delegate: "C",
      limit: "max_depth",
      allowed: 1,
      used: 1,
      budgetOwner: "A",
    });
    refused = [];
    await chain({ maxDepth: 0 }).run("work", { task: "go" });
    expect(refused[0]).toMatchObject({ agent: "A", limit: "max_depth", allowed: 0, used: 0 });
  });

  it("rolls duration up: a nested call's time is inside its parent's call", async () => {
    let clock = 0;
    const ticking = chain();
    const r = await ticking.run("work", { task: "go" }, { _internal: { now: () => (clock += 1000) } });
    const byAgent = Object.fromEntries(delegated.map((e) => [e.agent, e]));
    expect(byAgent.A!.durationMs).toBeGreaterThan(byAgent.B!.durationMs);
    expect(byAgent.B!.durationMs).toBeGreaterThan(byAgent.C!.durationMs);
    expect(r.ledger.duration).toBe(byAgent.A!.durationMs / 1000);
  });
});
