import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordingTracer } from "../../test/recording-tracer.js";
import { delegation } from "../agents/contract.js";
import { defineAgent } from "../agents/define-agent.js";
import { delegateTo } from "../agents/delegate-to.js";
import { mockModel } from "../agents/mock-model.js";
import { enableOpenTelemetry } from "./otel-bridge.js";

const leaf = defineAgent({
  name: "Leaf",
  backend: { provider: "mock" },
  delegations: [delegation("look", { description: "Look something up", input: z.object({ q: z.string() }) })],
  actions: { look: ({ q }: { q: string }) => q },
});
const middle = defineAgent({
  name: "Middle",
  backend: { provider: "mock" },
  delegations: [
    delegation("research", { description: "Research a question", input: z.object({ q: z.string() }) }),
  ],
  delegateTo: [delegateTo(leaf)],
  actions: { research: ({ q }: { q: string }) => q },
});
const top = defineAgent({
  name: "Top",
  backend: mockModel({
    replies: [
      {
        toolCalls: [
          { toolName: "research", input: { q: "why" } },
          { toolName: "research", input: { q: "again" } },
        ],
      },
      "done",
    ],
  }),
  delegateTo: [delegateTo(middle, { budget: { maxCalls: 1 } })],
  actions: { ask: () => "ask" },
});

describe("the delegation part of the OpenTelemetry bridge", () => {
  it("turns delegations into nested spans carrying the trace id, and refusals into span data", async () => {
    const { tracer, spans } = recordingTracer();
    const disable = enableOpenTelemetry({ tracer });
    try {
      await top.run("ask", undefined, { traceId: "trace-42" });
    } finally {
      disable();
    }
    const research = spans.find((s) => s.name === "delegation research")!;
    const look = spans.find((s) => s.name === "delegation look")!;
    expect(look.parent).toBe(research);
    expect(research.parent).toBeUndefined();
    expect(research.attributes).toMatchObject({
      "deputy.trace_id": "trace-42",
      "deputy.agent": "Top",
      "deputy.delegate": "Middle",
      "deputy.status": "ok",
      "gen_ai.request.model": "mock-1",
    });
    expect(research.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(research.attributes).not.toHaveProperty("deputy.arguments");
    expect(spans.every((s) => s.ended)).toBe(true);
    const refusal = spans.find((s) => s.name === "delegation-refused research")!;
    expect(refusal.attributes).toMatchObject({
      "deputy.limit": "max_calls",
      "deputy.allowed": 1,
      "deputy.used": 1,
    });
  });

  it("unsubscribes when disabled", async () => {
    const { tracer, spans } = recordingTracer();
    enableOpenTelemetry({ tracer })();
    await top.run("ask");
    expect(spans).toHaveLength(0);
  });
});
