/**
 * The behaviour reference's own examples (seeds/agent-delegation.txt), on the mock provider: TriageAgent with
 * an agent-wide budget of 6 calls and 45 s, the classifier at { maxCalls: 1, timeout: 10 }, and the knowledge
 * base renamed `search_help_centre` at { maxCalls: 3, maxTokens: 20000 }.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BudgetExceededError } from "../errors/budget-exceeded-error.js";
import type { BackendSpec } from "./backend.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo, type DelegateToOptions } from "./delegate-to.js";
import { mockModel, type MockReply } from "./mock-model.js";

const ticketClassifier = defineAgent({
  name: "TicketClassifierAgent",
  backend: { provider: "openai", model: "gpt-4o-mini" },
  delegations: [
    delegation("classify", {
      description: "Classify a support ticket by topic and urgency",
      input: z.object({ body: z.string().describe("The customer's message, verbatim") }),
      returns: z.object({
        category: z.enum(["billing", "bug", "account", "other"]).describe("What the ticket is about"),
        urgency: z.enum(["low", "normal", "high"]).describe("How quickly it needs a human"),
      }),
    }),
  ],
  actions: { classify: ({ body }: { body: string }) => ({ prompt: body }) },
});

const knowledgeBase = defineAgent({
  name: "KnowledgeBaseAgent",
  backend: { provider: "openai", model: "gpt-4o-mini" },
  delegations: [
    delegation("answer", {
      description: "Find the help-centre article that answers a question",
      input: {
        type: "object",
        properties: {
          question: { type: "string", description: "The customer's question in plain language" },
          limit: { type: "integer", description: "How many articles to consider (default 5)" },
        },
        required: ["question"],
      },
    }),
  ],
  actions: {
    answer: ({ question, limit = 5 }: { question: string; limit?: number }) =>
      `Answer from the help centre, citing up to ${limit} article titles: ${question}`,
  },
});

/** TriageAgent; `test` points both sub-agents at the mock provider at the call site (contracts unchanged). */
function triageAgent(
  options: { backend?: BackendSpec; kb?: DelegateToOptions; classifier?: DelegateToOptions } = {},
) {
  return defineAgent({
    name: "TriageAgent",
    backend: options.backend ?? { provider: "openai", model: "gpt-4o" },
    budget: { maxCalls: 6, maxDuration: 45 },
    delegateTo: [
      delegateTo(ticketClassifier, { budget: { maxCalls: 1, timeout: 10 }, ...options.classifier }),
      delegateTo(knowledgeBase, {
        as: "search_help_centre",
        budget: { maxCalls: 3, maxTokens: 20_000 },
        ...options.kb,
      }),
    ],
    actions: {
      triage: ({ ticket }: { ticket: string }) =>
        `Triage this ticket. Classify it first, then find the article that answers it.\n\n${ticket}`,
      acknowledge: ({ ticket }: { ticket: string }) => ({ prompt: ticket, delegations: false }),
      route: ({ ticket }: { ticket: string }) => ({ prompt: ticket, delegations: ["classify"] }),
    },
  });
}
const onMock = (replies?: (MockReply | string)[]) =>
  triageAgent({
    backend: replies ? mockModel({ replies }) : { provider: "mock" },
    kb: { backend: "mock" },
    classifier: { backend: "mock" },
  });
const ticket = "I was charged twice this month, a billing error. Please refund one; urgency: high.";

describe("the seed's delegation examples", () => {
  it("shows the calling model exactly the seed's tools", () => {
    expect(triageAgent().toolSpecs()).toEqual([
      {
        name: "classify",
        description: "Classify a support ticket by topic and urgency",
        parameters: {
          type: "object",
          properties: { body: { type: "string", description: "The customer's message, verbatim" } },
          required: ["body"],
          additionalProperties: false,
        },
      },
      {
        name: "search_help_centre",
        description: "Find the help-centre article that answers a question",
        parameters: {
          type: "object",
          properties: {
            question: { type: "string", description: "The customer's question in plain language" },
            limit: { type: "integer", description: "How many articles to consider (default 5)" },
          },
          required: ["question"],
          additionalProperties: false,
        },
      },
    ]);
  });

  it("keeps the contract exactly as in production when the backend is swapped for the mock", () => {
    expect(onMock().toolSpecs()).toEqual(triageAgent().toolSpecs());
  });

  it("declares the seed's budgets", () => {
    const agent = triageAgent();
    expect({
      agent: agent.budget,
      ...Object.fromEntries(agent.bindings.map((b) => [b.tool, b.budget])),
    }).toEqual({
      agent: { maxCalls: 6, maxDuration: 45 },
      classify: { maxCalls: 1, timeout: 10 },
      search_help_centre: { maxCalls: 3, maxTokens: 20_000 },
    });
  });

  it("calls a delegation directly, with no model in the loop", async () => {
    const result = await onMock().delegated.search_help_centre!({ question: "How do I reset my password?" });
    expect(result).toBe(
      "Answerway omfray ethay elphay entrecay, itingcay upway otay 5ay articleway itlestay: Owhay oday Iway esetray myay asswordpay?",
    );
  });

  it("triages a ticket: classify returns data, the knowledge base answers, the ledgers add up", async () => {
    const r = await onMock().run("triage", { ticket });
    const [classified, answer] = r.steps[0]!.toolResults.map((t) => t.output);
    expect(classified).toEqual({ category: "billing", urgency: "high" });
    expect(answer).toMatch(/^Answerway omfray ethay elphay entrecay/);
    expect(r.ledgers.classify).toMatchObject({ calls: 1 });
    expect(r.ledgers.search_help_centre).toMatchObject({ calls: 1 });
    expect(r.ledger.calls).toBe(2);
    expect(r.ledger.tokens).toBe(r.ledgers.classify!.tokens + r.ledgers.search_help_centre!.tokens);
    expect(r.ledger.tokens).toBeGreaterThan(0);
    expect(r.text).toContain("Based on classify");
  });

  it("exhausts the classifier's budget exactly as the seed shows", async () => {
    const r = await onMock([
      {
        toolCalls: [
          { toolName: "classify", input: { body: ticket } },
          { toolName: "classify", input: { body: ticket } },
        ],
      },
      "done",
    ]).run("triage", { ticket });
    expect(r.steps[0]!.toolResults[1]!.output).toEqual({
      error: "budget_exceeded",
      limit: "max_calls",
      allowed: 1,
      used: 1,
      message:
        "Delegation budget exhausted (max_calls: 1 of 1 used). Do not retry this tool; answer with the information you already have.",
    });
  });

  it("raises BudgetExceededError for the knowledge base with onExceeded: raise", async () => {
    const search = { toolName: "search_help_centre", input: { question: "refund?" } };
    const agent = triageAgent({
      backend: mockModel({ replies: [{ toolCalls: [search, search, search, search] }, "done"] }),
      classifier: { backend: "mock" },
      kb: { backend: "mock", budget: { maxCalls: 3, onExceeded: "raise" } },
    });
    const error = await agent.run("triage", { ticket }).catch((e) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.violation).toMatchObject({ limit: "max_calls", allowed: 3, used: 3 });
  });

  it("scopes delegations per action: every one, none, or a list", async () => {
    const model = mockModel({ replies: ["ok"] });
    const agent = triageAgent({ backend: model, kb: { backend: "mock" }, classifier: { backend: "mock" } });
    for (const action of ["triage", "acknowledge", "route"] as const) await agent.run(action, { ticket });
    expect(model.calls.map((c) => (c.tools ?? []).map((t) => t.name))).toEqual([
      ["classify", "search_help_centre"],
      [],
      ["classify"],
    ]);
  });

  it("drops arguments the model invented", async () => {
    const r = await onMock([
      {
        toolCalls: [
          { toolName: "search_help_centre", input: { question: "Reset password?", language: "pt" } },
        ],
      },
      "done",
    ]).run("triage", { ticket });
    expect(r.steps[0]!.toolResults[0]!.output).toBe(
      "Answerway omfray ethay elphay entrecay, itingcay upway otay 5ay articleway itlestay: Esetray asswordpay?",
    );
  });
});
