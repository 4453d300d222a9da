import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import { InvalidResultError } from "../errors/invalid-result-error.js";
import type { Budget } from "./budget.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo, type DelegateToOptions } from "./delegate-to.js";
import { mockModel, type MockModelOptions, type MockReply } from "./mock-model.js";
import { Pricing } from "./pricing.js";

const returns = z.object({ category: z.enum(["billing", "bug"]), urgency: z.enum(["low", "high"]) });

function classifier(
  model: MockModelOptions = {},
  extra: { onInvalid?: "error" | "raise"; budget?: Budget } = {},
) {
  const m = mockModel({ modelId: "small-1", ...model });
  const agent = defineAgent({
    name: "Classifier",
    backend: m,
    delegations: [
      delegation("classify", {
        description: "Classify a ticket",
        input: z.object({ body: z.string() }),
        returns,
        ...extra,
      }),
    ],
    actions: { classify: ({ body }: { body: string }) => body },
  });
  return { agent, model: m };
}

/** A parent whose model makes the given tool calls on its first step, then answers "done". */
function parentOf(
  sub: ReturnType<typeof classifier>["agent"],
  calls: MockReply["toolCalls"],
  site: DelegateToOptions = {},
  budget?: Budget,
) {
  const model = mockModel({ modelId: "big-1", replies: [{ toolCalls: calls }, "done"] });
  const agent = defineAgent({
    name: "Parent",
    backend: model,
    budget,
    delegateTo: [delegateTo(sub, site)],
    actions: { go: () => "Triage: billing, high" },
  });
  return { agent, model };
}
const call = (body: unknown = "billing high") => ({ toolName: "classify", input: { body } });
const outputs = (r: { steps: { toolResults: { output: unknown }[] }[] }) =>
  r.steps[0]!.toolResults.map((t) => t.output as any);

afterEach(() => Pricing.clear());

describe("arguments", () => {
  it("drops invented keys and returns contract failures to the calling model, uncounted", async () => {
    const { agent: sub, model } = classifier();
    const { agent } = parentOf(sub, [
      { toolName: "classify", input: { body: "bug low", mood: "angry" } },
      { toolName: "classify", input: { body: 42 } },
    ]);
    const r = await agent.run("go");
    expect(outputs(r)[0]).toEqual({ category: "bug", urgency: "low" });
    expect(outputs(r)[1]).toEqual({
      error: "invalid_arguments",
      issues: ["/body: must be string"],
      message: expect.stringContaining("Fix them and call it again"),
    });
    expect(r.ledgers.classify!.calls).toBe(1);
    expect(model.calls).toHaveLength(1);
    expect(JSON.stringify(model.calls[0]!.prompt)).not.toContain("angry");
  });
});

describe("declared outputs", () => {
  it("requests `<tool>_result` structured output and hands data back", async () => {
    const { agent: sub, model } = classifier();
    const parent = defineAgent({
      name: "P2",
      backend: mockModel({
        replies: [{ toolCalls: [{ toolName: "triage_classify", input: { body: "bug" } }] }, "done"],
      }),
      delegateTo: [delegateTo(sub, { as: "triage_classify" })],
      actions: { go: () => "x" },
    });
    await parent.run("go");
    expect(model.calls[0]!.responseFormat).toMatchObject({
      type: "json",
      name: "triage_classify_result",
      schema: { required: ["category", "urgency"] },
    });
  });

  it("finds JSON wrapped in prose", async () => {
    const { agent: sub } = classifier({
      replies: ['Sure: {"category":"billing","urgency":"high"}. Anything else?'],
    });
    expect(outputs(await parentOf(sub, [call()]).agent.run("go"))[0]).toEqual({
      category: "billing",
      urgency: "high",
    });
  });

  it("gives invalid_result (missing, issues, message, content) for answers that do not fit, nested checks included", async () => {
    const { agent: sub } = classifier({ replies: ['{"category":"refund"}'] });
    const r = await parentOf(sub, [call()]).agent.run("go");
    expect(outputs(r)[0]).toMatchObject({
      error: "invalid_result",
      missing: ["urgency"],
      content: '{"category":"refund"}',
      message: expect.any(String),
    });
    expect(outputs(r)[0].issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/category/),
        '(root): missing required key "urgency"',
      ]),
    );
    expect(outputs(r)[0]).not.toHaveProperty("ok");
  });

  it("throws InvalidResultError with onInvalid: raise", async () => {
    const { agent: sub } = classifier({ replies: ["no idea"] }, { onInvalid: "raise" });
    const { agent, model } = parentOf(sub, [call(), call()]);
    const error = await agent.run("go").catch((e) => e);
    expect(InvalidResultError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ tool: "classify", missing: ["category", "urgency"], content: "no idea" });
    expect(model.calls).toHaveLength(1); // the generation was aborted
  });
});

describe("budgets", () => {
  it("stop: refuses the call over the limit with an answer telling the model not to retry; a refused call is not recorded", async () => {
    const { agent: sub, model } = classifier();
    const r = await parentOf(sub, [call(), call(), call()], { budget: { maxCalls: 1 } }).agent.run("go");
    expect(outputs(r)[1]).toEqual({
      error: "budget_exceeded",
      limit: "max_calls",
      allowed: 1,
      used: 1,
      message:
        "Delegation budget exhausted (max_calls: 1 of 1 used). Do not retry this tool; answer with the information you already have.",
    });
    expect(outputs(r)[2]).toMatchObject({ error: "budget_exceeded", used: 1 });
    expect(r.ledgers.classify!.calls).toBe(1);
    expect(r.ledger.calls).toBe(1);
    expect(model.calls).toHaveLength(1);
    expect(r.text).toBe("done"); // the generation goes on
  });

  it("raise: throws BudgetExceededError carrying the violation and aborts the generation", async () => {
    const { agent: sub } = classifier();
    const { agent, model } = parentOf(sub, [call(), call()], {
      budget: { maxCalls: 1, onExceeded: "raise" },
    });
    const error = await agent.run("go").catch((e) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.violation).toEqual({
      limit: "max_calls",
      allowed: 1,
      used: 1,
      scope: "delegation",
      agent: "Parent",
      tool: "classify",
    });
    expect(model.calls).toHaveLength(1);
  });

  it("checks maxTokens before each call: it stops delegating once the tokens are spent", async () => {
    const { agent: sub } = classifier();
    const r = await parentOf(sub, [call(), call()], { budget: { maxTokens: 1 } }).agent.run("go");
    expect(outputs(r)[0]).toHaveProperty("category");
    expect(outputs(r)[1]).toMatchObject({
      error: "budget_exceeded",
      limit: "max_tokens",
      allowed: 1,
      used: r.ledgers.classify!.tokens,
    });
    expect(r.ledgers.classify!.tokens).toBeGreaterThan(1);
  });

  it("prices with inline rates over the registry, and enforces maxCost", async () => {
    Pricing.register("small", { input: 1000, output: 1000 });
    const { agent: sub } = classifier();
    const inline = await parentOf(sub, [call(), call()], {
      budget: { maxCost: 1, rates: { input: 1, output: 2 } },
    }).agent.run("go");
    const registry = await parentOf(sub, [call(), call()], { budget: { maxCost: 0.1 } }).agent.run("go");
    const tokens = inline.ledgers.classify!.tokens;
    expect(inline.ledgers.classify!.cost).toBeGreaterThan(0);
    expect(inline.ledgers.classify!.cost).toBeLessThan(tokens * 2e-6 + 1e-12);
    expect(outputs(inline)[1]).toHaveProperty("category"); // cheap: still under maxCost
    expect(registry.ledgers.classify!.cost).toBeCloseTo((registry.ledgers.classify!.tokens * 1000) / 1e6, 9);
    expect(outputs(registry)[1]).toMatchObject({ error: "budget_exceeded", limit: "max_cost", allowed: 0.1 });
  });

  it("costs 0 for a model with no known rate, so maxCost never fires on invented numbers", async () => {
    const { agent: sub } = classifier();
    const r = await parentOf(sub, [call(), call()], { budget: { maxCost: 0.000001 } }).agent.run("go");
    expect(r.ledgers.classify!.cost).toBe(0);
    expect(outputs(r)[1]).toHaveProperty("category");
  });

  it("enforces maxDuration on cumulative wall-clock (injected clock)", async () => {
    let clock = 0;
    const { agent: sub } = classifier({
      respond: () => ((clock += 30_000), '{"category":"bug","urgency":"low"}'),
    });
    const r = await parentOf(sub, [call(), call(), call()], { budget: { maxDuration: 45 } }).agent.run(
      "go",
      undefined,
      { _internal: { now: () => clock } },
    );
    expect(outputs(r)[1]).toHaveProperty("category");
    expect(outputs(r)[2]).toMatchObject({
      error: "budget_exceeded",
      limit: "max_duration",
      allowed: 45,
      used: 60,
    });
    expect(r.ledgers.classify!.duration).toBe(60);
  });

  it("applies the agent-wide ceiling and the delegation's limit together", async () => {
    const { agent: sub } = classifier();
    const site = defineAgent({
      name: "Parent",
      backend: mockModel({
        replies: [{ toolCalls: [call(), { toolName: "again", input: { body: "x" } }, call()] }, "done"],
      }),
      budget: { maxCalls: 2 },
      delegateTo: [delegateTo(sub, { budget: { maxCalls: 5 } }), delegateTo(sub, { as: "again" })],
      actions: { go: () => "x" },
    });
    const r = await site.run("go");
    expect(outputs(r)[2]).toMatchObject({
      error: "budget_exceeded",
      limit: "max_calls",
      allowed: 2,
      message: expect.stringContaining("Agent-wide delegation budget of Parent exhausted"),
    });
    expect(r.ledger).toMatchObject({ calls: 2 });
  });

  it("honours the agent-wide onExceeded", async () => {
    const { agent: sub } = classifier();
    const error = await parentOf(sub, [call(), call()], {}, { maxCalls: 1, onExceeded: "raise" })
      .agent.run("go")
      .catch((e) => e);
    expect(error.violation).toMatchObject({ limit: "max_calls", scope: "agent", agent: "Parent" });
  });

  it("lives for one generation: a second run starts from zero", async () => {
    const { agent: sub } = classifier();
    const { agent } = parentOf(sub, [call()], { budget: { maxCalls: 1 } });
    expect(outputs(await agent.run("go"))[0]).toHaveProperty("category");
    expect(outputs(await agent.run("go"))[0]).toHaveProperty("category");
  });
});

describe("timeouts", () => {
  it("aborts the sub-agent's request through its signal and answers `timeout`", async () => {
    const { agent: sub, model } = classifier({ latencyMs: 60_000 });
    const r = await parentOf(sub, [call()], { budget: { timeout: 0.02 } }).agent.run("go");
    expect(outputs(r)[0]).toMatchObject({
      error: "timeout",
      limit: "timeout",
      allowed: 0.02,
      message: expect.stringContaining("Do not retry this tool"),
    });
    expect(outputs(r)[0].used).toBeGreaterThan(0);
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true);
    expect(r.ledgers.classify!.calls).toBe(1);
    expect(r.text).toBe("done");
  });

  it("throws with onExceeded: raise, and honours the agent-wide timeout", async () => {
    const { agent: sub } = classifier({ latencyMs: 60_000 });
    const raised = await parentOf(sub, [call()], { budget: { timeout: 0.02, onExceeded: "raise" } })
      .agent.run("go")
      .catch((e) => e);
    expect(raised.violation).toMatchObject({ limit: "timeout", allowed: 0.02, scope: "delegation" });
    const agentWide = await parentOf(sub, [call()], {}, { timeout: 0.02 }).agent.run("go");
    expect(outputs(agentWide)[0]).toMatchObject({ error: "timeout", allowed: 0.02 });
  });
});

describe("agent-wide rates", () => {
  it("price delegations that set no rates of their own", async () => {
    const { agent: sub } = classifier();
    const r = await parentOf(sub, [call()], {}, { rates: { input: 1e6, output: 1e6 } }).agent.run("go");
    expect(r.ledgers.classify!.cost).toBe(r.ledgers.classify!.tokens);
  });
});

describe("a delegated tool is an ordinary function", () => {
  it("can be called directly, with no model in the loop, and answers what the model would read", async () => {
    const { agent: sub } = classifier();
    const { agent, model } = parentOf(sub, [], { budget: { maxCalls: 1 } });
    expect(await agent.delegated.classify!({ body: "billing" })).toEqual({
      category: "billing",
      urgency: "low",
    });
    expect(await agent.delegated.classify!({ body: 1 })).toMatchObject({ error: "invalid_arguments" });
    expect(model.calls).toHaveLength(0);
  });
});

describe("params, instructions and messages", () => {
  it("forwards call-site params (an object, or a function of the calling run) to the sub-agent's context", async () => {
    const seen: unknown[] = [];
    const sub = defineAgent({
      name: "Echo",
      backend: mockModel({ replies: ["ok"] }),
      instructions: (ctx) => `Locale ${String(ctx.params.locale)}.`,
      delegations: [delegation("echo", { description: "Echo", input: z.object({ text: z.string() }) })],
      actions: {
        echo: ({ text }: { text: string }, ctx) => {
          seen.push(ctx.params);
          return { messages: [{ role: "assistant" as const, content: "earlier turn" }], prompt: text };
        },
      },
    });
    const parent = defineAgent({
      name: "Caller",
      backend: mockModel({
        replies: [
          {
            toolCalls: [
              { toolName: "echo", input: { text: "a" } },
              { toolName: "echo_for", input: { text: "b" } },
            ],
          },
          "done",
        ],
      }),
      delegateTo: [
        delegateTo(sub, { params: { locale: "en" } }),
        delegateTo(sub, {
          as: "echo_for",
          params: (parent) => ({
            account: parent.params.account,
            ticket: (parent.input as { id: number }).id,
          }),
        }),
      ],
      actions: { go: (_input: { id: number }) => "go" },
    });
    await parent.run("go", { id: 7 }, { params: { account: "acme" } });
    expect(seen).toEqual([{ locale: "en" }, { account: "acme", ticket: 7 }]);
    const prompt = (sub.backend as ReturnType<typeof mockModel>).calls[0]!.prompt;
    expect(prompt[0]).toEqual({ role: "system", content: "Locale en." });
    expect(prompt[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "earlier turn" }] });
  });
});

describe("a sub-agent whose provider fails", () => {
  it("answers delegate_failed to the calling model and reports status error", async () => {
    const { subscribe, unsubscribe } = await import("node:diagnostics_channel");
    const statuses: string[] = [];
    const on = (m: unknown) => statuses.push((m as { status: string }).status);
    subscribe("deputy:delegation", on);
    try {
      const { agent: sub } = classifier({
        respond: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")),
      });
      const r = await parentOf(sub, [call()]).agent.run("go");
      expect(outputs(r)[0]).toEqual({
        error: "delegate_failed",
        message: "`classify` failed: connect ECONNREFUSED 127.0.0.1:9",
      });
      expect(r.text).toBe("done");
    } finally {
      unsubscribe("deputy:delegation", on);
    }
    expect(statuses).toEqual(["error"]);
  });
});
