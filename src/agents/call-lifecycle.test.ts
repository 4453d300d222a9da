import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { delegateToPlan } from "../compose/index.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import {
  DELEGATION_CHANNEL,
  DELEGATION_START_CHANNEL,
  type DelegationEvent,
  type DelegationStartEvent,
} from "./events.js";
import { mockModel } from "./mock-model.js";
import { Pricing } from "./pricing.js";

// A call to an agent and a call to a plan go through one lifecycle: the same ledger entries and the same events,
// field for field (a plan call adds only its run id).
Pricing.register("lifecycle-mock", { input: 1, output: 2 });

const helper = defineAgent({
  name: "Helper",
  backend: mockModel({ modelId: "lifecycle-mock" }),
  actions: { answer: ({ q }: { q: string }) => `Answer briefly: ${q}` },
});
const input = z.object({ q: z.string() });
const plan = {
  name: "ask-helper",
  objective: "Ask the helper",
  inputs: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  returns: "answer",
  nodes: [
    {
      id: "ask",
      type: "agent",
      agent: "helper",
      action: "answer",
      input: { q: "{inputs.q}" },
      store_as: "answer",
    },
  ],
};

function lead(calls: { toolName: string; input: unknown }[]) {
  return defineAgent({
    name: "Lead",
    backend: mockModel({ replies: [{ toolCalls: calls }, "done"] }),
    delegateTo: [
      delegateTo(helper, { action: "answer", as: "to_agent", description: "Ask the helper", input }),
      delegateToPlan(plan, { name: "to_plan", agents: { helper }, tools: [] }),
    ],
    actions: { run: (ask: string) => ask },
  });
}

const starts: DelegationStartEvent[] = [];
const ends: DelegationEvent[] = [];
const onStart = (m: unknown) => starts.push(m as DelegationStartEvent);
const onEnd = (m: unknown) => ends.push(m as DelegationEvent);
beforeEach(() => {
  starts.length = 0;
  ends.length = 0;
  subscribe(DELEGATION_START_CHANNEL, onStart);
  subscribe(DELEGATION_CHANNEL, onEnd);
});
afterEach(() => {
  unsubscribe(DELEGATION_START_CHANNEL, onStart);
  unsubscribe(DELEGATION_CHANNEL, onEnd);
});

const keys = (o: object) =>
  Object.keys(o)
    .filter((k) => k !== "runId")
    .sort();
const byTool = <E extends { tool: string }>(events: E[], tool: string) =>
  events.find((e) => e.tool === tool)!;

describe("one lifecycle for a delegated call (to an agent, to a plan)", () => {
  it("records the same ledger entries and publishes the same events for both", async () => {
    const result = await lead([
      { toolName: "to_agent", input: { q: "why?" } },
      { toolName: "to_plan", input: { q: "why?" } },
    ]).run("run", "go");

    const agentLedger = result.ledgers.to_agent!;
    const planLedger = result.ledgers.to_plan!;
    // The same sub-agent answered the same question once each way: the same calls and tokens, at the same cost.
    expect(agentLedger.calls).toBe(1);
    expect(agentLedger.tokens).toBeGreaterThan(0);
    expect(agentLedger.cost).toBeGreaterThan(0);
    expect({ ...planLedger, duration: 0 }).toEqual({ ...agentLedger, duration: 0 });
    expect(result.ledger).toMatchObject({
      calls: 2,
      tokens: agentLedger.tokens + planLedger.tokens,
    });

    expect(starts.map((e) => e.tool).sort()).toEqual(["to_agent", "to_plan"]);
    expect(ends.map((e) => e.tool).sort()).toEqual(["to_agent", "to_plan"]);
    const [sa, sp] = [byTool(starts, "to_agent"), byTool(starts, "to_plan")];
    const [ea, ep] = [byTool(ends, "to_agent"), byTool(ends, "to_plan")];
    expect(keys(sp)).toEqual(keys(sa));
    expect(keys(ep)).toEqual(keys(ea));
    expect(sp.runId).toMatch(/\S/);
    expect(ep.runId).toBe(sp.runId);
    for (const [s, e] of [
      [sa, ea],
      [sp, ep],
    ] as const) {
      expect(s).toMatchObject({ agent: "Lead", depth: 1, parentCallId: undefined, arguments: { q: "why?" } });
      expect(e).toMatchObject({
        callId: s.callId,
        status: "ok",
        depth: 1,
        provider: s.provider,
        model: s.model,
      });
    }
    expect([sa.action, sp.action]).toEqual(["answer", "run"]);
    expect([sa.provider, sp.provider, sp.model]).toEqual(["mock", "plan", "ask-helper"]);
    // What the call spent, and the running ledgers, carried the same way.
    expect(ep.usage).toEqual(ea.usage);
    expect(ep.cost).toBe(ea.cost);
    expect(keys(ep.delegationLedger)).toEqual(keys(ea.delegationLedger));
    expect(ep.delegationLedger).toMatchObject({ calls: 1, tokens: planLedger.tokens });
  });

  it("refuses bad arguments the same way for both, with the same event", async () => {
    const result = await lead([
      { toolName: "to_agent", input: { question: 1 } },
      { toolName: "to_plan", input: { question: 1 } },
    ]).run("run", "go");
    expect(result.ledger.calls).toBe(0);
    expect(starts).toEqual([]);
    const [ea, ep] = [byTool(ends, "to_agent"), byTool(ends, "to_plan")];
    expect(keys(ep)).toEqual(keys(ea));
    for (const e of [ea, ep])
      expect(e).toMatchObject({ status: "invalid_arguments", durationMs: 0, cost: 0 });
    expect(result.steps[0]!.toolResults?.map((r) => (r.output as { error: string }).error)).toEqual([
      "invalid_arguments",
      "invalid_arguments",
    ]);
  });
});
