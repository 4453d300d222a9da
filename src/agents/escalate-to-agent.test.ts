import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryTraceSink } from "../traces/memory-trace-sink.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { runPlan } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { defineAgent } from "./define-agent.js";
import { mockModel, type MockReply, type MockRequest } from "./mock-model.js";

const sent: string[] = [];
const tools = [
  defineTool({
    name: "page",
    description: "Page on-call",
    delegateSafe: true,
    input: z.object({ service: z.string() }),
    run: ({ service }) => (sent.push(`page:${service}`), "paged"),
  }),
  defineTool({
    name: "ticket",
    description: "File a ticket",
    delegateSafe: true,
    input: z.object({ service: z.string(), priority: z.enum(["P2", "P3"]) }),
    run: ({ service }) => (sent.push(`ticket:${service}`), "filed"),
  }),
];

const plan = {
  name: "cascade",
  nodes: [
    {
      id: "route",
      type: "delegate",
      instruction: "Checkout is down for everyone",
      facts: { service: "checkout" },
      tools: ["page", "ticket"],
      min_confidence: 0.8,
      on_reject: "escalate",
      escalate_to: "teacher",
      store_as: "route",
    },
  ],
};

function teacher(respond: (r: MockRequest) => MockReply) {
  return defineAgent({
    name: "Teacher",
    backend: mockModel({ respond }),
    instructions: "You route incidents.",
    actions: { route: () => "" },
  });
}

const unsure = () =>
  new ScriptedDelegate({
    entries: [
      {
        node: "route",
        proposal: { name: "ticket", arguments: { service: "checkout", priority: "P3" }, confidence: 0.4 },
      },
    ],
  });

describe("escalate_to an agent", () => {
  it("lets the agent decide a rejected proposal; its call passes the gate and runs; both hops are traced", async () => {
    sent.length = 0;
    const traceSink = new MemoryTraceSink();
    let seen: MockRequest | undefined;
    const agent = teacher(
      (r) => ((seen = r), { toolCalls: [{ toolName: "page", input: { service: "checkout" } }] }),
    );
    const m = await runPlan(plan, { tools, delegates: [unsure()], agents: { teacher: agent }, traceSink });
    expect(m.status).toBe("completed");
    expect(sent).toEqual(["page:checkout"]);
    expect(seen!.tools.map((t) => t.name)).toEqual(["page", "ticket"]);
    expect(seen!.userText).toContain("low_confidence");
    expect(traceSink.traces.map((t) => [t.source ?? "delegate", t.verdict])).toEqual([
      ["delegate", "low_confidence"],
      ["agent", "accepted"],
    ]);
    expect(traceSink.traces[1]!.finalCall).toEqual({ name: "page", arguments: { service: "checkout" } });
  });

  it("escalates to a person when the agent declines or proposes something the gate rejects", async () => {
    sent.length = 0;
    const declines = teacher(() => ({ text: "DECLINE" }));
    const m1 = await runPlan(plan, { tools, delegates: [unsure()], agents: { teacher: declines } });
    expect(m1.status).toBe("escalated");
    expect(m1.nodes.route!.escalations[0]!.reason).toContain("did not resolve it (declined");
    const invents = teacher(() => ({
      toolCalls: [{ toolName: "ticket", input: { service: "checkout", priority: "P1" } }],
    }));
    const m2 = await runPlan(plan, { tools, delegates: [unsure()], agents: { teacher: invents } });
    expect(m2.status).toBe("escalated");
    expect(m2.nodes.route!.escalations[0]!.reason).toContain("invalid_args");
    expect(sent).toEqual([]);
  });

  it("traces an answer outside the candidates as that proposal, unknown_tool, and says so in the escalation", async () => {
    sent.length = 0;
    const traceSink = new MemoryTraceSink();
    const outside = teacher(() => ({ toolCalls: [{ toolName: "drop_tables", input: { all: true } }] }));
    const m = await runPlan(plan, { tools, delegates: [unsure()], agents: { teacher: outside }, traceSink });
    expect(m.status).toBe("escalated");
    const hop = traceSink.traces[1]!;
    expect(hop).toMatchObject({ source: "agent", verdict: "unknown_tool" });
    expect(hop.proposal).toMatchObject({ name: "drop_tables", arguments: { all: true } });
    expect(m.nodes.route!.escalations[0]!.reason).toContain(
      'did not resolve it (unknown_tool: tool "drop_tables" is not one of page, ticket)',
    );
    expect(sent).toEqual([]);
  });

  it("traces arguments that are not a JSON object as invalid_args, with what the agent wrote", async () => {
    sent.length = 0;
    const traceSink = new MemoryTraceSink();
    for (const rawInput of ["{service: checkout", '"checkout"', "[1]"]) {
      const garbled = teacher(() => ({ toolCalls: [{ toolName: "page", rawInput }] }));
      traceSink.traces.length = 0;
      const m = await runPlan(plan, {
        tools,
        delegates: [unsure()],
        agents: { teacher: garbled },
        traceSink,
      });
      expect(m.status).toBe("escalated");
      expect(traceSink.traces[1]).toMatchObject({ source: "agent", verdict: "invalid_args" });
      expect(traceSink.traces[1]!.proposal).toMatchObject({ name: "page" });
      const reason = m.nodes.route!.escalations[0]!.reason;
      expect(reason).toContain("did not resolve it (invalid_args");
      expect(reason).toContain("not a JSON object");
    }
    expect(sent).toEqual([]);
  });
});
