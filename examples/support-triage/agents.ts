import { z } from "zod";
import { defineAgent, delegateTo, delegation, type BackendSpec } from "../../src/agents/index.js";

/**
 * The seed's support-triage agents: a ticket classifier (declared output), a help-centre knowledge base, and a
 * triage agent that delegates to both under budgets. `backend` serves all three (the mock model by default).
 */
export function buildAgents(backend: BackendSpec = { provider: "mock" }) {
  const classifier = defineAgent({
    name: "TicketClassifierAgent",
    backend,
    instructions: "You classify customer support tickets. Answer with JSON only.",
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
    actions: {
      classify: ({ body }: { body: string }) => body,
    },
  });

  const knowledgeBase = defineAgent({
    name: "KnowledgeBaseAgent",
    backend,
    instructions: "You answer from the help centre, citing up to the requested number of article titles.",
    delegations: [
      delegation("answer", {
        description: "Find the help-centre article that answers a question",
        input: {
          type: "object",
          properties: {
            question: { type: "string", description: "The customer's question in plain language" },
            limit: {
              type: "integer",
              description: "How many articles to consider (default 5)",
              minimum: 1,
              maximum: 10,
            },
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

  const triage = defineAgent({
    name: "TriageAgent",
    backend,
    instructions: "You triage support tickets. Use your tools, then answer in two sentences.",
    // Ceiling for every delegation this agent makes in one generation.
    budget: { maxCalls: 6, maxDuration: 45 },
    delegateTo: [
      delegateTo(classifier, { budget: { maxCalls: 1, timeout: 10 } }),
      delegateTo(knowledgeBase, { as: "search_help_centre", budget: { maxCalls: 3, maxTokens: 20_000 } }),
    ],
    actions: {
      triage: ({ ticket }: { ticket: string }) =>
        `Triage this ticket. Classify it first, then find the article that answers it.\n\n${ticket}`,
      acknowledge: ({ ticket }: { ticket: string }) => ({ prompt: ticket, delegations: false }),
      route: ({ ticket }: { ticket: string }) => ({ prompt: ticket, delegations: ["classify"] }),
    },
  });

  return { classifier, knowledgeBase, triage };
}
