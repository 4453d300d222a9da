import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "../agents/define-agent.js";
import { mockModel } from "../agents/mock-model.js";
import { defineTool } from "../tools/define-tool.js";
import { MemoryTraceSink } from "../traces/memory-trace-sink.js";
import type { ProposalEvent } from "./proposal-channel.js";
import { routerTool } from "./router-tool.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

const done: string[] = [];
const lookup = defineTool({
  name: "lookup_user",
  description: "Find a user",
  delegateSafe: true,
  input: z.object({ email: z.string() }),
  run: ({ email }) => (done.push(`lookup:${email}`), { email, plan: "pro" }),
});
const wipe = defineTool({
  name: "delete_user",
  description: "Delete a user",
  input: z.object({ email: z.string() }),
  run: ({ email }) => (done.push(`delete:${email}`), "deleted"),
});

describe("routerTool", () => {
  it("lets an agent hand a request to a fast delegate, running only what the gate accepts", async () => {
    done.length = 0;
    const delegate = new ScriptedDelegate({
      entries: [
        {
          node: "quick_action",
          proposal: { name: "lookup_user", arguments: { email: "a@x.io" }, confidence: 0.97 },
        },
        {
          node: "quick_action",
          proposal: { name: "delete_user", arguments: { email: "a@x.io" }, confidence: 0.99 },
        },
      ],
    });
    const route = routerTool({ name: "quick_action", delegate, tools: [lookup, wipe] });
    const ctx = {
      signal: new AbortController().signal,
      idempotencyKey: "k",
      runId: "r",
      nodeId: "n",
      attempt: 1,
    };
    expect(await route.run({ request: "what plan is a@x.io on?" }, ctx)).toEqual({
      tool: "lookup_user",
      arguments: { email: "a@x.io" },
      result: { email: "a@x.io", plan: "pro" },
    });
    // delete_user is not delegateSafe: the side-effect double key refuses it, and nothing runs.
    expect(await route.run({ request: "delete a@x.io" }, ctx)).toMatchObject({
      error: "rejected",
      verdict: "side_effect_denied",
    });
    expect(done).toEqual(["lookup:a@x.io"]);
  });

  it("is an ordinary tool in an agent's tool loop", async () => {
    done.length = 0;
    const delegate = new ScriptedDelegate({
      entries: [
        {
          node: "quick_action",
          proposal: { name: "lookup_user", arguments: { email: "b@x.io" }, confidence: 0.9 },
        },
      ],
    });
    const route = routerTool({ name: "quick_action", delegate, tools: [lookup], minConfidence: 0.5 });
    const agent = defineAgent({
      name: "Support",
      backend: mockModel({
        replies: [
          { toolCalls: [{ toolName: "quick_action", input: { request: "look up b@x.io" } }] },
          "b@x.io is on pro",
        ],
      }),
      tools: [route],
      actions: { help: (q: string) => q },
    });
    const result = await agent.run("help", "which plan is b@x.io on?");
    expect(result.text).toBe("b@x.io is on pro");
    expect(done).toEqual(["lookup:b@x.io"]);
  });

  it("traces every call and publishes it on deputy:proposal, as a delegate node does", async () => {
    done.length = 0;
    const delegate = new ScriptedDelegate({
      entries: [
        {
          node: "quick_action",
          proposal: { name: "lookup_user", arguments: { email: "c@x.io" }, confidence: 0.8 },
        },
        {
          node: "quick_action",
          proposal: { name: "wipe_everything", arguments: {}, confidence: 0.99 },
        },
      ],
    });
    const sink = new MemoryTraceSink();
    const route = routerTool({ name: "quick_action", delegate, tools: [lookup], traceSink: sink });
    const events: ProposalEvent[] = [];
    const listen = (message: unknown) => events.push(message as ProposalEvent);
    subscribe("deputy:proposal", listen);
    try {
      const ctx = {
        signal: new AbortController().signal,
        idempotencyKey: "k",
        runId: "trace-1",
        nodeId: "n",
        attempt: 1,
      };
      await route.run({ request: "plan of c@x.io?", facts: { ticket: 7 } }, ctx);
      expect(await route.run({ request: "wipe it all" }, ctx)).toMatchObject({
        error: "rejected",
        verdict: "unknown_tool",
      });
    } finally {
      unsubscribe("deputy:proposal", listen);
    }
    expect(done).toEqual(["lookup:c@x.io"]);
    expect(sink.traces).toMatchObject([
      {
        runId: "trace-1",
        nodeId: "quick_action",
        instruction: "plan of c@x.io?",
        facts: { ticket: 7 },
        verdict: "accepted",
        finalCall: { name: "lookup_user", arguments: { email: "c@x.io" } },
        backend: "scripted",
        source: "delegate",
      },
      {
        runId: "trace-1",
        nodeId: "quick_action",
        verdict: "unknown_tool",
        proposal: { name: "wipe_everything" },
      },
    ]);
    expect(events).toMatchObject([
      {
        type: "proposal-end",
        runId: "trace-1",
        nodeId: "quick_action",
        verdict: "accepted",
        tool: "lookup_user",
        confidence: 0.8,
      },
      { type: "proposal-end", verdict: "unknown_tool", tool: "wipe_everything" },
    ]);
  });
});
