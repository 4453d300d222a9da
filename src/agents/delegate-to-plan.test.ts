import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import type { Budget } from "./budget.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { delegateToPlan, runPlan, type DelegateToPlanOptions } from "../compose/index.js";
import {
  DELEGATION_CHANNEL,
  DELEGATION_START_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegationEvent,
  type DelegationStartEvent,
  type DelegationRefusedEvent,
} from "./events.js";
import { mockModel, type MockReply } from "./mock-model.js";
import { planSpend } from "./plan-call.js";
import { Pricing } from "./pricing.js";

// The plan's agents answer on a priced mock model, so cost is real arithmetic, not 0.
Pricing.register("plan-test-mock", { input: 1, output: 2 });
const priced = () => mockModel({ modelId: "plan-test-mock" });

let listed: string[] = [];
const listTickets = defineTool({
  name: "list_tickets",
  description: "The open tickets of a support queue",
  input: z.object({ queue: z.string() }),
  run: ({ queue }) => {
    listed.push(queue);
    return {
      queue,
      open: [{ body: "I was charged twice" }, { body: "The app crashes" }, { body: "Reset my password" }],
    };
  },
});
const classifier = defineAgent({
  name: "Classifier",
  backend: priced(),
  delegations: [
    delegation("classify", {
      description: "Classify a ticket",
      input: z.object({ body: z.string() }),
      returns: z.object({ category: z.enum(["billing", "bug", "account", "other"]) }),
    }),
  ],
  actions: { classify: ({ body }: { body: string }) => body },
});
const summarizer = defineAgent({
  name: "Summarizer",
  backend: priced(),
  actions: {
    summarize: ({ queue, tickets }: { queue: string; tickets: unknown[] }) =>
      `Summarise the ${queue} queue: ${tickets.length} open tickets.`,
  },
});

/** A real plan: a tool node, an agent node under for_each, and an agent node whose result the plan returns. */
const triagePlan = {
  name: "triage-queue",
  objective: "Classify every open ticket of a support queue and summarise the queue",
  inputs: {
    type: "object",
    properties: { queue: { type: "string", description: "The queue to triage" } },
    required: ["queue"],
  },
  returns: "summary",
  nodes: [
    { id: "load", tool: "list_tickets", args: { queue: "{inputs.queue}" }, store_as: "tickets" },
    {
      id: "classify",
      type: "agent",
      agent: "classifier",
      action: "classify",
      depends_on: ["load"],
      input: { body: "{ticket.body}" },
      store_as: "class_{index}",
      for_each: { source: "{artifacts.tickets}", select: "open[]", as: "ticket", max_concurrency: 2 },
    },
    {
      id: "summary",
      type: "agent",
      agent: "summarizer",
      depends_on: ["classify"],
      input: { queue: "{inputs.queue}", tickets: "{artifacts.tickets.open}" },
      store_as: "summary",
    },
  ],
};
const runOptions = { tools: [listTickets], agents: { classifier, summarizer } };

/** An agent whose model calls `triage_queue` with each of `calls` (one step), then answers "done". */
function lead(
  calls: unknown[],
  options: Partial<DelegateToPlanOptions> = {},
  agent: { budget?: Budget; maxDepth?: number } = {},
) {
  const toolCalls: MockReply["toolCalls"] = calls.map((input) => ({ toolName: "triage_queue", input }));
  return defineAgent({
    name: "Lead",
    backend: mockModel({ replies: [{ toolCalls }, "done"] }),
    delegateTo: [delegateToPlan(triagePlan, { name: "triage_queue", ...runOptions, ...options })],
    actions: { run: (ask: string) => ask },
    ...agent,
  });
}

/** What a direct run of the plan spends and answers (the mock models are deterministic). */
async function direct(queue: string) {
  const manifest = await runPlan(triagePlan, { ...runOptions, inputs: { queue } });
  return { value: manifest.artifacts.summary, ...planSpend(manifest) };
}

const events = {
  start: [] as DelegationStartEvent[],
  end: [] as DelegationEvent[],
  refused: [] as DelegationRefusedEvent[],
};
const onStart = (m: unknown) => events.start.push(m as DelegationStartEvent);
const onEnd = (m: unknown) => events.end.push(m as DelegationEvent);
const onRefused = (m: unknown) => events.refused.push(m as DelegationRefusedEvent);
function listen() {
  events.start = [];
  events.end = [];
  events.refused = [];
  listed = [];
  subscribe(DELEGATION_START_CHANNEL, onStart);
  subscribe(DELEGATION_CHANNEL, onEnd);
  subscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
}
afterEach(() => {
  unsubscribe(DELEGATION_START_CHANNEL, onStart);
  unsubscribe(DELEGATION_CHANNEL, onEnd);
  unsubscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});

describe("delegateToPlan: the tool", () => {
  it("is the plan's declared inputs, with required and additionalProperties: false as contracts get", () => {
    expect(lead([]).toolSpecs()).toEqual([
      {
        name: "triage_queue",
        description: "Classify every open ticket of a support queue and summarise the queue",
        parameters: {
          type: "object",
          properties: { queue: { type: "string", description: "The queue to triage" } },
          required: ["queue"],
          additionalProperties: false,
        },
      },
    ]);
    const described = delegateToPlan(
      { ...triagePlan, name: "q", inputs: { type: "object", properties: { queue: { type: "string" } } } },
      { ...runOptions, description: "Triage a queue", as: "triage" },
    ).bindings[0]!;
    expect(described).toMatchObject({ tool: "triage", description: "Triage a queue" });
    expect(described.parameters).toMatchObject({ required: [], additionalProperties: false });
  });

  it("is refused at definition, with the fix, for a plan without inputs or returns, or one that cannot run", () => {
    const define =
      (plan: object, options: Partial<DelegateToPlanOptions> = {}) =>
      () =>
        delegateToPlan(plan, { name: "t", ...runOptions, ...options });
    const { inputs: _i, ...noInputs } = triagePlan;
    const { returns: _r, ...noReturns } = triagePlan;
    expect(define(noInputs)).toThrow(AgentDefinitionError);
    expect(define(noInputs)).toThrow(/declares no `inputs`.*"inputs": \{ "type": "object"/);
    expect(define(noReturns)).toThrow(/declares no `returns`.*Add "returns": "<artifact key>"/);
    expect(define({ ...triagePlan, returns: "class_0" })).toThrow(
      /no node stores that key.*Name one of: tickets, summary/,
    );
    expect(define(triagePlan, { tools: [] })).toThrow(/the plan is invalid \(load: .*list_tickets/);
    expect(define(triagePlan, { agents: {} })).toThrow(/unknown agent "classifier"/);
    expect(define({ ...triagePlan, inputs: { type: "string" } })).toThrow(/must describe an object/);
    expect(define({ ...triagePlan, objective: "" })).toThrow(/needs a `description`/);
    expect(define(triagePlan, { name: "triage queue" })).toThrow(/tool name must be 1–64/);
    expect(() => delegateToPlan(triagePlan, {} as DelegateToPlanOptions)).toThrow(
      /needs options with `tools`/,
    );
    // @ts-expect-error a file name is no plan (a compile error; JavaScript callers get this error)
    expect(() => delegateToPlan("plan.json", runOptions)).toThrow(/expects an execution plan/);
    expect(define(triagePlan, { budget: { max_calls: 1 } as Budget })).toThrow(/did you mean `maxCalls`/);
    expect(() =>
      defineAgent({
        name: "L",
        backend: mockModel(),
        tools: [listTickets],
        delegateTo: [delegateToPlan(triagePlan, { name: "list_tickets", ...runOptions })],
        actions: { run: (x: string) => x },
      }),
    ).toThrow(/`list_tickets` of delegateTo\(triage-queue\) collides with one of its own tools/);
  });
});

describe("delegateToPlan: a call", () => {
  it("runs the plan with the arguments as its inputs and answers with the returned artifact", async () => {
    listen();
    const store = new MemoryRunStore();
    const expected = await direct("billing");
    listed = [];
    const result = await lead([{ queue: "billing", invented: true }], { store }).run("run", "Triage billing");

    expect(result.text).toBe("done");
    const output = result.steps[0]!.toolResults[0]!.output;
    expect(output).toEqual(expected.value);
    expect(typeof output).toBe("string");
    expect(listed).toEqual(["billing"]); // the tool node ran with {inputs.queue}

    // The ledger: one call, its duration, and the tokens and cost the plan's agent nodes spent.
    expect(expected.tokens).toBeGreaterThan(0);
    expect(expected.cost).toBeGreaterThan(0);
    expect(result.ledgers.triage_queue).toMatchObject({ calls: 1, tokens: expected.tokens });
    expect(result.ledgers.triage_queue!.cost).toBeCloseTo(expected.cost, 9);
    expect(result.ledgers.triage_queue!.duration).toBeGreaterThanOrEqual(0);
    expect(result.ledger).toEqual(result.ledgers.triage_queue);

    // Events, like a delegation to an agent; the run id finds the run in the store it ran with.
    const [start] = events.start;
    const [end] = events.end;
    expect(start).toMatchObject({
      agent: "Lead",
      delegate: "triage-queue",
      tool: "triage_queue",
      depth: 1,
      provider: "plan",
      model: "triage-queue",
      arguments: { queue: "billing" }, // the invented key was dropped
    });
    expect(end).toMatchObject({
      callId: start!.callId,
      runId: start!.runId,
      status: "ok",
      usage: { totalTokens: expected.tokens },
      delegationLedger: result.ledgers.triage_queue,
    });
    const stored = await store.load(start!.runId!);
    expect(stored?.run.status).toBe("completed");
    expect(stored?.run.options.inputs).toEqual({ queue: "billing" });
  });

  it("answers invalid arguments like a contract, without running the plan or counting a call", async () => {
    listen();
    const agent = lead([{ queue: 7 }, {}]);
    const result = await agent.run("run", "Triage");
    const outputs = result.steps[0]!.toolResults.map((r) => r.output);
    expect(outputs).toEqual([
      expect.objectContaining({ error: "invalid_arguments", issues: [expect.stringContaining("/queue")] }),
      expect.objectContaining({ error: "invalid_arguments", issues: [expect.stringContaining("queue")] }),
    ]);
    expect(listed).toEqual([]);
    expect(result.ledger.calls).toBe(0);
    expect(events.end.map((e) => e.status)).toEqual(["invalid_arguments", "invalid_arguments"]);
    expect(await agent.delegated.triage_queue!({ queue: ["x"] })).toMatchObject({
      error: "invalid_arguments",
    });
  });
});

describe("delegateToPlan: budgets", () => {
  it("refuses past the delegation's maxCalls and the agent-wide ceiling (stop), before the call", async () => {
    listen();
    const perDelegation = await lead([{ queue: "a" }, { queue: "b" }], { budget: { maxCalls: 1 } }).run(
      "run",
      "x",
    );
    expect(perDelegation.steps[0]!.toolResults[1]!.output).toMatchObject({
      error: "budget_exceeded",
      limit: "max_calls",
      allowed: 1,
      used: 1,
    });
    expect(listed).toEqual(["a"]);
    expect(perDelegation.ledger.calls).toBe(1);

    // Tokens are known after the first run: the agent-wide ceiling refuses the second.
    listed = [];
    const ceiling = await lead([{ queue: "a" }, { queue: "b" }], {}, { budget: { maxTokens: 10 } }).run(
      "run",
      "x",
    );
    expect(ceiling.steps[0]!.toolResults[1]!.output).toMatchObject({
      error: "budget_exceeded",
      limit: "max_tokens",
    });
    expect(listed).toEqual(["a"]);
    // The ceiling also stops the first call's plan: its third ticket and its summary would spend past it.
    expect(events.refused.map((e) => `${e.limit}/${e.scope}/${e.budgetOwner}:${e.delegate}`)).toEqual([
      "max_calls/delegation/Lead:triage-queue",
      "max_tokens/agent/Lead:Classifier",
      "max_tokens/agent/Lead:Summarizer",
      "max_tokens/agent/Lead:triage-queue",
    ]);
  });

  it("throws BudgetExceededError with onExceeded: raise", async () => {
    const agent = lead([{ queue: "a" }, { queue: "b" }], { budget: { maxCalls: 1, onExceeded: "raise" } });
    const error = await agent.run("run", "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).violation).toMatchObject({
      limit: "max_calls",
      scope: "delegation",
      agent: "Lead",
      tool: "triage_queue",
    });
  });

  describe("timeout", () => {
    let aborted = 0;
    const slow = defineTool({
      name: "slow",
      description: "Never answers until aborted",
      input: z.object({ q: z.string() }),
      run: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted++;
            reject(ctx.signal.reason as Error);
          });
        }),
    });
    const slowPlan = {
      name: "wait",
      objective: "Wait",
      inputs: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      returns: "out",
      nodes: [{ id: "wait", tool: "slow", args: { q: "{inputs.q}" }, store_as: "out" }],
    };
    const waiter = (budget: Budget) =>
      defineAgent({
        name: "Waiter",
        backend: mockModel(),
        delegateTo: [delegateToPlan(slowPlan, { tools: [slow], budget })],
        actions: { run: (x: string) => x },
      });

    it("aborts the plan run and answers timeout (stop) or throws (raise)", async () => {
      listen();
      aborted = 0;
      const answer = await waiter({ timeout: 0.05 }).delegated.wait!({ q: "x" });
      expect(answer).toMatchObject({ error: "timeout", limit: "timeout", allowed: 0.05 });
      expect(aborted).toBe(1);
      expect(events.end.at(-1)).toMatchObject({ tool: "wait", status: "timed_out" });
      await expect(
        waiter({ timeout: 0.05, onExceeded: "raise" }).delegated.wait!({ q: "x" }),
      ).rejects.toBeInstanceOf(BudgetExceededError);
      expect(aborted).toBe(2);
    });

    it("re-throws the caller's abort instead of answering", async () => {
      const controller = new AbortController();
      const aborting = defineTool({
        name: "slow",
        description: "Aborts the caller, then waits",
        input: z.object({ q: z.string() }),
        run: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason as Error));
            setImmediate(() => controller.abort(new Error("caller gave up")));
          }),
      });
      const agent = defineAgent({
        name: "Waiter",
        backend: mockModel(),
        delegateTo: [delegateToPlan(slowPlan, { tools: [aborting] })],
        actions: { run: (x: string) => x },
      });
      await expect(agent.delegated.wait!({ q: "x" }, { signal: controller.signal })).rejects.toThrow(
        "caller gave up",
      );
    });
  });
});

describe("delegateToPlan: plans that do not complete", () => {
  it("answers plan_failed with the run's status and errors", async () => {
    listen();
    const broken = defineTool({
      name: "list_tickets",
      description: "The open tickets",
      input: z.object({ queue: z.string() }),
      run: () => {
        throw new Error("ticket API is down");
      },
    });
    const agent = defineAgent({
      name: "Lead",
      backend: mockModel(),
      delegateTo: [delegateToPlan(triagePlan, { name: "triage_queue", ...runOptions, tools: [broken] })],
      actions: { run: (x: string) => x },
    });
    const answer = await agent.delegated.triage_queue!({ queue: "billing" });
    expect(answer).toMatchObject({
      error: "plan_failed",
      status: "failed",
      errors: expect.arrayContaining([
        expect.objectContaining({ nodeId: "load", message: expect.stringContaining("ticket API is down") }),
        expect.objectContaining({ nodeId: "summary", code: "BLOCKED" }),
      ]),
    });
    expect(events.end.at(-1)).toMatchObject({
      status: "error",
      issues: expect.arrayContaining(["load: ticket API is down"]),
    });
  });

  const ignore = defineTool({
    name: "ignore_alert",
    description: "Ignore a noisy alert",
    delegateSafe: true,
    input: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
    run: (args: Record<string, unknown>) => ({ ignored: true, ...args }),
  });
  const alertPlan = (node: object = {}) => ({
    name: "alert",
    objective: "Decide what to do with one alert",
    inputs: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    returns: "decision",
    nodes: [
      {
        id: "d",
        type: "delegate",
        instruction: "Triage the alert: {inputs.summary}",
        tools: ["ignore_alert"],
        on_reject: "escalate",
        store_as: "decision",
        ...node,
      },
    ],
  });
  const declining = () => new ScriptedDelegate({ entries: [{ node: "d", proposal: { name: null } }] });

  it("answers plan_escalated with the run id and the escalations when a person must decide", async () => {
    listen();
    const store = new MemoryRunStore();
    const agent = defineAgent({
      name: "Lead",
      backend: mockModel(),
      delegateTo: [delegateToPlan(alertPlan(), { tools: [ignore], delegates: [declining()], store })],
      actions: { run: (x: string) => x },
    });
    const answer = (await agent.delegated.alert!({ summary: "disk full" })) as Record<string, unknown>;
    expect(answer).toMatchObject({
      error: "plan_escalated",
      runId: expect.any(String),
      escalations: [{ nodeId: "d", verdict: expect.any(String), reason: expect.any(String) }],
    });
    expect((await store.load(answer.runId as string))?.run.status).toBe("escalated");
    expect(events.end.at(-1)).toMatchObject({ status: "escalated", runId: answer.runId });
  });

  it("counts what an escalate_to agent spent deciding in the plan's place", async () => {
    const planner = defineAgent({
      name: "Planner",
      backend: priced(),
      actions: { decide: (x: string) => x },
    });
    const plan = alertPlan({ escalate_to: "planner" });
    const options = { tools: [ignore], agents: { planner } };
    const agent = defineAgent({
      name: "Lead",
      backend: mockModel({
        replies: [{ toolCalls: [{ toolName: "alert", input: { summary: "disk full" } }] }, "done"],
      }),
      delegateTo: [delegateToPlan(plan, { ...options, delegates: [declining()] })],
      actions: { run: (x: string) => x },
    });
    const manifest = await runPlan(plan, {
      ...options,
      delegates: [declining()],
      inputs: { summary: "disk full" },
    });
    const spent = planSpend(manifest);
    expect(spent.tokens).toBeGreaterThan(0);

    const r = await agent.run("run", "x");
    const answer = r.steps[0]!.toolResults[0]!.output;
    expect(answer).toEqual(manifest.artifacts.decision);
    expect(answer).toMatchObject({ ignored: true });
    expect(r.ledgers.alert).toMatchObject({ calls: 1, tokens: spent.tokens });
    expect(r.ledgers.alert!.cost).toBeCloseTo(spent.cost, 9);
  });
});

describe("delegateToPlan: nested", () => {
  const middle = (options: Partial<DelegateToPlanOptions> = {}) =>
    defineAgent({
      name: "Middle",
      backend: mockModel({
        replies: [{ toolCalls: [{ toolName: "triage_queue", input: { queue: "billing" } }] }, "middle done"],
      }),
      delegations: [
        delegation("dig", { description: "Dig into a queue", input: z.object({ task: z.string() }) }),
      ],
      delegateTo: [delegateToPlan(triagePlan, { name: "triage_queue", ...runOptions, ...options })],
      actions: { dig: ({ task }: { task: string }) => task },
    });
  const top = (agent: { budget?: Budget; maxDepth?: number } = {}) =>
    defineAgent({
      name: "Top",
      backend: mockModel({
        replies: [{ toolCalls: [{ toolName: "dig", input: { task: "look" } }] }, "top done"],
      }),
      delegateTo: [delegateTo(middle())],
      actions: { run: (x: string) => x },
      ...agent,
    });

  it("rolls the plan's spend and call up into every ancestor's ledger", async () => {
    listen();
    const expected = await direct("billing");
    const r = await top().run("run", "x");
    expect(r.ledger.calls).toBe(2); // dig, and the plan call nested in it
    expect(r.ledgers.dig!.calls).toBe(1);
    expect(r.ledgers.dig!.tokens).toBeGreaterThan(expected.tokens); // Middle's own requests plus the plan's
    const plan = events.end.find((e) => e.tool === "triage_queue")!;
    const dig = events.end.find((e) => e.tool === "dig")!;
    expect(plan).toMatchObject({
      depth: 2,
      parentCallId: dig.callId,
      status: "ok",
      usage: { totalTokens: expected.tokens },
    });
    expect(dig.usage.totalTokens).toBe(r.ledgers.dig!.tokens);
  });

  it("is refused by an ancestor's ceiling and by maxDepth", async () => {
    listen();
    const ceiling = await top({ budget: { maxTokens: 1 } }).run("run", "x");
    expect(listed).toEqual([]);
    expect(ceiling.steps[0]!.toolResults[0]!.output).toBe("middle done");
    const depth = await top({ maxDepth: 1 }).run("run", "x");
    expect(depth.ledger.calls).toBe(1);
    expect(listed).toEqual([]);
    expect(events.refused.map((e) => `${e.tool}:${e.limit}/${e.budgetOwner}`)).toEqual([
      "triage_queue:max_tokens/Top",
      "triage_queue:max_depth/Top",
    ]);
  });
});
