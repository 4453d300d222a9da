import { describe, expect, it } from "vitest";
import { createHost } from "../compose/index.js";
import { compileSchema } from "../schema/validator.js";
import { planJsonSchema } from "./plan-json-schema.js";

describe("planJsonSchema", () => {
  const { nodeTypes } = createHost({ tools: [] });
  const check = compileSchema(planJsonSchema(nodeTypes));

  it("accepts the seed's plan shape: a node without type is a tool node, defaults may be left out", () => {
    const plan = {
      name: "triage",
      nodes: [
        { id: "fetch", tool: "fetch_alerts", store_as: "alerts" },
        {
          id: "triage",
          type: "delegate",
          instruction: "Triage {item.title}",
          tools: ["ignore_alert", "file_ticket"],
          min_confidence: 0.7,
          on_reject: "escalate",
          depends_on: ["fetch"],
          store_as: "triage_{index}",
          for_each: { source: "{artifacts.alerts}" },
        },
        {
          id: "sum",
          type: "agent",
          agent: "summarizer",
          input: { all: "{artifacts.alerts}" },
          store_as: "sum",
        },
      ],
    };
    expect(check(plan), JSON.stringify(check.errors)).toBe(true);
  });

  it("refuses what validation refuses structurally: unknown fields, another type's fields, unknown types", () => {
    const one = (node: Record<string, unknown>) => check({ name: "p", nodes: [node] });
    expect(one({ id: "a", tool: "t", store_as: "a", depend_on: [] })).toBe(false);
    expect(one({ id: "a", tool: "t", store_as: "a", instruction: "x" })).toBe(false);
    expect(one({ id: "a", type: "wait", store_as: "a" })).toBe(false);
    expect(one({ id: "a", type: "delegate", instruction: "x", tools: [], store_as: "a" })).toBe(false);
  });
});
