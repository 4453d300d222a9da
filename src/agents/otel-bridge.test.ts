import {
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
} from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { mockModel } from "./mock-model.js";
import { enableOpenTelemetry } from "./otel-bridge.js";

/** A recording tracer (the OpenTelemetry SDK is outside the project; the API is what we bridge to). */
class RecordedSpan implements Span {
  attributes: Attributes;
  events: { name: string; attributes?: Attributes }[] = [];
  status: SpanStatus = { code: 0 };
  ended = false;
  readonly context: SpanContext;
  constructor(
    readonly name: string,
    options: SpanOptions,
    readonly parent: RecordedSpan | undefined,
    id: number,
  ) {
    this.attributes = { ...options.attributes };
    this.context = {
      traceId: "0".repeat(31) + "1",
      spanId: id.toString(16).padStart(16, "0"),
      traceFlags: 1,
    };
  }
  spanContext() {
    return this.context;
  }
  setAttribute(k: string, v: any) {
    this.attributes[k] = v;
    return this;
  }
  setAttributes(a: Attributes) {
    Object.assign(this.attributes, a);
    return this;
  }
  addEvent(name: string, attributes?: any) {
    this.events.push({ name, attributes });
    return this;
  }
  addLink() {
    return this;
  }
  addLinks() {
    return this;
  }
  setStatus(s: SpanStatus) {
    this.status = s;
    return this;
  }
  updateName() {
    return this;
  }
  end() {
    this.ended = true;
  }
  isRecording() {
    return !this.ended;
  }
  recordException() {}
}
function recordingTracer() {
  const spans: RecordedSpan[] = [];
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}, ctx?: Context) {
      const parent = ctx ? (trace.getSpan(ctx) as RecordedSpan | undefined) : undefined;
      const span = new RecordedSpan(name, options, parent, spans.length + 1);
      spans.push(span);
      return span;
    },
    startActiveSpan() {
      throw new Error("not used");
    },
  } as unknown as Tracer;
  return { tracer, spans };
}

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

describe("enableOpenTelemetry", () => {
  it("turns delegations into nested spans carrying the trace id, and refusals into span data", async () => {
    const { tracer, spans } = recordingTracer();
    const disable = enableOpenTelemetry({ tracer });
    try {
      await top.run("ask", undefined, { traceId: "trace-42" });
    } finally {
      disable();
    }
    const research = spans.find((s) => s.name === "delegate research")!;
    const look = spans.find((s) => s.name === "delegate look")!;
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
