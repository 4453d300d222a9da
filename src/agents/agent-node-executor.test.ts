import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHost, runPlan } from "../compose/index.js";
import { validatePlan } from "../plan/index.js";
import { defineTool } from "../tools/define-tool.js";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { mockModel } from "./mock-model.js";

const classifier = defineAgent({
  name: "Classifier",
  backend: { provider: "mock" },
  delegations: [
    delegation("classify", {
      description: "Classify a ticket",
      input: z.object({ body: z.string() }),
      returns: z.object({ category: z.enum(["billing", "bug", "account", "other"]) }),
    }),
  ],
  actions: { classify: ({ body }: { body: string }) => body },
});

const tickets = defineTool({
  name: "tickets",
  description: "The open tickets",
  input: z.object({}),
  run: () => ({
    open: [{ body: "I was charged twice" }, { body: "The app crashes" }, { body: "Reset my password" }],
  }),
});

const plan = {
  name: "classify-tickets",
  nodes: [
    { id: "load", tool: "tickets", store_as: "load" },
    {
      id: "classify",
      type: "agent",
      agent: "classifier",
      action: "classify",
      depends_on: ["load"],
      input: { body: "{item.body}" },
      store_as: "class_{index}",
      for_each: { source: "{artifacts.load}", select: "open[]", max_concurrency: 2 },
    },
  ],
};

describe("agent nodes", () => {
  it("run an agent's action per item, store its structured answer and sum what it spent", async () => {
    const m = await runPlan(plan, { tools: [tickets], agents: { classifier } });
    expect(m.status).toBe("completed");
    expect(m.nodes.classify!.items).toMatchObject({ total: 3, ok: 3 });
    for (const i of [0, 1, 2]) {
      expect(["billing", "bug", "account", "other"]).toContain(
        (m.artifacts[`class_${i}`] as { category: string }).category,
      );
    }
    const perItem = Object.values(m.nodes.classify!.itemDetails!).map(
      (d) => (d.spend as { tokens: number }).tokens,
    );
    expect(perItem.every((t) => t > 0)).toBe(true);
    expect(m.nodes.classify!.spend!.tokens).toBe(perItem.reduce((a, b) => a + b, 0));
  });

  it("are checked at validation: unknown agent (did you mean), unknown or missing action", () => {
    const { host, nodeTypes } = createHost({ tools: [tickets], agents: { classifier } });
    const bad = {
      name: "x",
      nodes: [
        { id: "a", type: "agent", agent: "clasifier", input: {}, store_as: "a" },
        { id: "b", type: "agent", agent: "classifier", action: "summarise", input: {}, store_as: "b" },
      ],
    };
    const issues = validatePlan(bad, { host, nodeTypes }).issues.map((i) => `${i.code}@${i.nodeId}`);
    expect(issues).toEqual(["unknown_agent@a", "unknown_action@b"]);
    expect(validatePlan(bad, { host, nodeTypes }).issues[0]!.message).toContain('did you mean "classifier"');
  });

  it("time out through the node's timeout, which aborts the agent's request", async () => {
    const slow = defineAgent({
      name: "Slow",
      backend: mockModel({ latencyMs: 60_000 }),
      actions: { go: () => "x" },
    });
    const m = await runPlan(
      {
        name: "slow",
        nodes: [{ id: "s", type: "agent", agent: "slow", input: {}, store_as: "s", timeout: 0.05 }],
      },
      { tools: [], agents: { slow } },
    );
    expect(m.status).toBe("failed");
    expect(m.nodes.s!.errors[0]!.code).toBe("TIMEOUT");
  });
});
