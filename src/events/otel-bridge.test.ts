import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordingTracer, type RecordedSpan } from "../../test/recording-tracer.js";
import { defineAgent } from "../agents/define-agent.js";
import { mockModel } from "../agents/mock-model.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { delegateToPlan } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { DIAGNOSTICS_CHANNELS, onDiagnostics, type DiagnosticsEvents } from "./diagnostics-channels.js";
import { enableOpenTelemetry } from "./otel-bridge.js";

// One agent call that touches every channel: an agent delegates to a plan (twice: the second call is refused by
// its budget); the plan runs a tool node and a delegate node over two items, each item a judged proposal.
const listItems = defineTool({
  name: "list_items",
  description: "The open items",
  input: z.object({ queue: z.string() }),
  run: ({ queue }) => ({ queue, open: ["a", "b"] }),
});
const mark = defineTool({
  name: "mark",
  description: "Mark an item",
  delegateSafe: true,
  input: z.object({ item: z.string() }),
  run: ({ item }) => `marked ${item}`,
});
const plan = {
  name: "mark-queue",
  objective: "Mark every open item of a queue",
  inputs: { type: "object", properties: { queue: { type: "string" } }, required: ["queue"] },
  returns: "items",
  nodes: [
    { id: "load", tool: "list_items", args: { queue: "{inputs.queue}" }, store_as: "items" },
    {
      id: "route",
      type: "delegate",
      depends_on: ["load"],
      instruction: "Mark {item}",
      tools: ["mark"],
      for_each: { source: "{artifacts.items}", select: "open[]", as: "item" },
      store_as: "marked_{index}",
    },
  ],
};
const delegate = new ScriptedDelegate({
  entries: ["a", "b"].map((item, i) => ({
    node: "route",
    item: i,
    proposal: { name: "mark", arguments: { item }, confidence: 0.9 },
  })),
});
const lead = defineAgent({
  name: "Lead",
  backend: mockModel({
    replies: [
      {
        toolCalls: [
          { toolName: "mark_queue", input: { queue: "q1" } },
          { toolName: "mark_queue", input: { queue: "q2" } },
        ],
      },
      "done",
    ],
  }),
  delegateTo: [
    delegateToPlan(plan, {
      name: "mark_queue",
      tools: [listItems, mark],
      delegates: [delegate],
      budget: { maxCalls: 1 },
    }),
  ],
  actions: { run: (ask: string) => ask },
});

const named = (spans: RecordedSpan[], name: string) => spans.filter((s) => s.name === name);

/** How each channel shows in the spans: every channel in the list must have a check here. */
const bridged: Record<keyof DiagnosticsEvents, (spans: RecordedSpan[]) => void> = {
  "deputy:run": (spans) => {
    const [run] = named(spans, "run mark-queue");
    expect(run).toBeDefined();
    expect(run!.attributes).toMatchObject({ "deputy.plan": "mark-queue", "deputy.status": "completed" });
    expect(run!.parent?.name).toBe("delegation mark_queue");
  },
  "deputy:node": (spans) => {
    const [run] = named(spans, "run mark-queue");
    const [load] = named(spans, "node load");
    const [route] = named(spans, "node route");
    expect([load?.parent, route?.parent]).toEqual([run, run]);
    expect(route!.attributes).toMatchObject({ "deputy.node_id": "route", "deputy.status": "ok" });
    expect(route!.events.filter((e) => e.name === "item-end")).toHaveLength(2);
  },
  "deputy:proposal": (spans) => {
    const [route] = named(spans, "node route");
    const proposals = route!.events.filter((e) => e.name === "proposal");
    expect(proposals.map((p) => p.attributes)).toEqual([
      expect.objectContaining({
        "deputy.verdict": "accepted",
        "deputy.tool": "mark",
        "deputy.confidence": 0.9,
      }),
      expect.objectContaining({ "deputy.verdict": "accepted", "deputy.tool": "mark", "deputy.item": 1 }),
    ]);
  },
  "deputy:delegation-start": (spans) => {
    const [call] = named(spans, "delegation mark_queue");
    expect(call!.attributes).toMatchObject({ "deputy.agent": "Lead", "gen_ai.system": "plan" });
    expect(call!.attributes["deputy.run_id"]).toMatch(/\S/);
  },
  "deputy:delegation": (spans) => {
    const [call] = named(spans, "delegation mark_queue");
    expect(call!.attributes).toMatchObject({ "deputy.status": "ok", "deputy.ledger.calls": 1 });
  },
  "deputy:delegation-refused": (spans) => {
    const [refusal] = named(spans, "delegation-refused mark_queue");
    expect(refusal!.attributes).toMatchObject({ "deputy.limit": "max_calls", "deputy.allowed": 1 });
  },
};

describe("enableOpenTelemetry (deputy): every diagnostics channel", () => {
  it("bridges each channel in DIAGNOSTICS_CHANNELS to spans or span events", async () => {
    expect(Object.keys(bridged).sort()).toEqual(DIAGNOSTICS_CHANNELS.map((c) => c.name).sort());
    const seen = new Set<string>();
    const stops = DIAGNOSTICS_CHANNELS.map((c) => onDiagnostics(c.name, () => seen.add(c.name)));
    const { tracer, spans } = recordingTracer();
    const disable = enableOpenTelemetry({ tracer });
    try {
      expect((await lead.run("run", "mark both queues")).text).toBe("done");
    } finally {
      disable();
      for (const stop of stops) stop();
    }
    // The scenario publishes on every channel, and each shows in the spans.
    expect([...seen].sort()).toEqual(DIAGNOSTICS_CHANNELS.map((c) => c.name).sort());
    for (const c of DIAGNOSTICS_CHANNELS) bridged[c.name](spans);
    expect(spans.every((s) => s.ended)).toBe(true);
  });

  it("unsubscribes from every channel when disabled", async () => {
    const { tracer, spans } = recordingTracer();
    enableOpenTelemetry({ tracer })();
    await lead.run("run", "again");
    expect(spans).toHaveLength(0);
  });

  it("keeps a throwing listener away from the work that published", async () => {
    const stop = onDiagnostics("deputy:delegation", () => {
      throw new Error("listener bug");
    });
    try {
      expect((await lead.run("run", "once more")).text).toBe("done");
    } finally {
      stop();
    }
  });
});
