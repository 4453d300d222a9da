import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { delegation } from "./contract.js";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import {
  DELEGATION_CHANNEL,
  DELEGATION_START_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type DelegationEvent,
  type DelegationStartEvent,
  type DelegationRefusedEvent,
} from "./events.js";
import { mockModel, type MockModelOptions } from "./mock-model.js";

const seen: { start: DelegationStartEvent[]; end: DelegationEvent[]; refused: DelegationRefusedEvent[] } = {
  start: [],
  end: [],
  refused: [],
};
const onStart = (m: unknown) => seen.start.push(m as DelegationStartEvent);
const onEnd = (m: unknown) => seen.end.push(m as DelegationEvent);
const onRefused = (m: unknown) => seen.refused.push(m as DelegationRefusedEvent);
beforeEach(() => {
  seen.start = [];
  seen.end = [];
  seen.refused = [];
  subscribe(DELEGATION_START_CHANNEL, onStart);
  subscribe(DELEGATION_CHANNEL, onEnd);
  subscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});
afterEach(() => {
  unsubscribe(DELEGATION_START_CHANNEL, onStart);
  unsubscribe(DELEGATION_CHANNEL, onEnd);
  unsubscribe(DELEGATION_REFUSED_CHANNEL, onRefused);
});

function run(sub: MockModelOptions, calls: unknown[], budget = {}) {
  const classifier = defineAgent({
    name: "Classifier",
    backend: mockModel({ modelId: "small-1", ...sub }),
    delegations: [
      delegation("classify", {
        description: "Classify",
        input: z.object({ body: z.string() }),
        returns: z.object({ category: z.enum(["billing", "bug"]) }),
      }),
    ],
    actions: { classify: ({ body }: { body: string }) => body },
  });
  const triage = defineAgent({
    name: "Triage",
    backend: mockModel({
      replies: [{ toolCalls: calls.map((input) => ({ toolName: "classify", input })) }, "done"],
    }),
    delegateTo: [delegateTo(classifier, { budget })],
    actions: { triage: () => "ticket" },
  });
  return triage.run("triage", undefined, { traceId: "t-1" });
}

describe("deputy:delegation", () => {
  it("reports agent, delegate, action, tool, arguments, model, duration, usage, cost, ledger and status ok", async () => {
    const r = await run({}, [{ body: "a billing question" }]);
    expect(seen.end).toHaveLength(1);
    const e = seen.end[0]!;
    expect(e).toMatchObject({
      traceId: "t-1",
      agent: "Triage",
      delegate: "Classifier",
      action: "classify",
      tool: "classify",
      arguments: { body: "a billing question" },
      provider: "mock",
      model: "small-1",
      status: "ok",
      cost: 0,
      depth: 1,
    });
    expect(e.usage.totalTokens).toBe(r.ledgers.classify!.tokens);
    expect(e.usage.totalTokens).toBe(e.usage.inputTokens + e.usage.outputTokens);
    expect(e.ledger).toEqual(r.ledger);
    expect(e.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen.start).toEqual([
      expect.objectContaining({
        callId: e.callId,
        tool: "classify",
        model: "small-1",
        arguments: { body: "a billing question" },
      }),
    ]);
  });

  it("reports invalid_arguments, invalid_result and timed_out", async () => {
    await run({ replies: ['{"category":"refund"}'] }, [{ body: 1 }, { body: "x" }]);
    expect(seen.end.map((e) => e.status)).toEqual(["invalid_arguments", "invalid_result"]);
    expect(seen.end[0]!.issues).toEqual(["/body: must be string"]);
    expect(seen.start).toHaveLength(1); // no call was made for invalid arguments
    seen.end = [];
    await run({ latencyMs: 60_000 }, [{ body: "x" }], { timeout: 0.01 });
    expect(seen.end.map((e) => e.status)).toEqual(["timed_out"]);
  });
});

describe("deputy:delegation-refused", () => {
  it("reports the limit, allowed and used", async () => {
    await run({}, [{ body: "a" }, { body: "b" }], { maxCalls: 1 });
    expect(seen.refused).toEqual([
      expect.objectContaining({
        traceId: "t-1",
        agent: "Triage",
        delegate: "Classifier",
        tool: "classify",
        limit: "max_calls",
        allowed: 1,
        used: 1,
        scope: "delegation",
        budgetOwner: "Triage",
        policy: "stop",
      }),
    ]);
  });
});
