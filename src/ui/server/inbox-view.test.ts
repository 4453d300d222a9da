import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedDelegate } from "../../delegate/scripted-delegate.js";
import { runPlan } from "../../compose/index.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import type { RunRecord } from "../../store/run-state.js";
import { defineTool } from "../../tools/define-tool.js";
import { inbox, UNRECORDED_INSTRUCTION } from "./inbox-view.js";
import { RunToolLoader } from "./run-tool-loader.js";

const tools = [
  defineTool({
    name: "page",
    description: "Page on-call",
    delegateSafe: true,
    input: z.object({ service: z.string() }),
    run: () => "paged",
  }),
  defineTool({
    name: "ticket",
    description: "File a ticket",
    delegateDescription: "File a ticket (for what can wait)",
    delegateSafe: true,
    input: z.object({ service: z.string(), priority: z.enum(["P2", "P3"]) }),
    run: () => "filed",
  }),
];

const plan = {
  name: "triage",
  nodes: [
    { id: "src", tool: "list", args: {}, store_as: "alerts" },
    {
      id: "route",
      type: "delegate",
      depends_on: ["src"],
      instruction: "Route the alert: {item.title}",
      facts: { service: "{item.service}" },
      tools: ["page", "ticket"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "route_{index}",
      for_each: { source: "{artifacts.alerts}", as: "item" },
    },
  ],
};
const list = defineTool({
  name: "list",
  description: "the alerts",
  input: z.object({}),
  run: () => [
    { title: "Checkout down", service: "checkout" },
    { title: "Slow search", service: "search" },
  ],
});

describe("the console's inbox reads escalation records", () => {
  it("shows the instruction, facts and candidate tools each escalation recorded, with no tools module", async () => {
    const store = new MemoryRunStore();
    const unsure = { name: "ticket", arguments: { service: "x", priority: "P3" }, confidence: 0.3 };
    const delegate = new ScriptedDelegate({
      entries: [0, 1].map((item) => ({ node: "route", item, proposal: unsure })),
    });
    const m = await runPlan(plan, { tools: [...tools, list], delegates: [delegate], store });
    expect(m.status).toBe("escalated");
    // No tools module is known (the run was started from code): all of it comes from the records.
    const entries = await inbox(store, new RunToolLoader());
    expect(entries.map((e) => [e.nodeId, e.item])).toEqual([
      ["route", 0],
      ["route", 1],
    ]);
    expect(entries[1]).toMatchObject({
      instruction: "Route the alert: Slow search",
      facts: { service: "search" },
      minConfidence: 0.8,
      allowSideEffects: false,
      recorded: true,
      verdict: "low_confidence",
    });
    expect(entries[1]!.tools.map((t) => [t.name, t.description])).toEqual([
      ["page", "Page on-call"],
      ["ticket", "File a ticket (for what can wait)"],
    ]);
    expect(entries[1]!.tools[1]!.parameters).toMatchObject({
      properties: { priority: { enum: ["P2", "P3"] } },
    });
    // Stored with the record itself, so a reader needs no plan.
    const stored = (await store.load(m.runId))!;
    expect(stored.items.route![0]!.escalation).toMatchObject({
      instruction: "Route the alert: Checkout down",
      facts: { service: "checkout" },
      tools: [{ name: "page" }, { name: "ticket" }],
    });
  });

  it("still shows an escalation stored before records kept their input: the reason, the proposal, a note", async () => {
    const store = new MemoryRunStore();
    const run: RunRecord = {
      runId: "old",
      planName: "triage",
      fingerprint: "f",
      plan,
      status: "escalated",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      options: { version: 1 },
    };
    await store.createRun(run);
    const escalation = {
      nodeId: "route",
      item: 1,
      verdict: "low_confidence",
      reason: "confidence 0.3 is below min_confidence 0.8",
      proposal: { name: "ticket", arguments: { service: "search", priority: "P3" }, confidence: 0.3 },
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    const items = { total: 2, ok: 1, error: 0, skipped: 0, escalated: 1, reused: 0 };
    await store.write("old", [
      { kind: "node", nodeId: "route", record: { status: "escalated", storedKeys: [], attempts: 1, items } },
      { kind: "item", nodeId: "route", item: { index: 1, status: "escalated", escalation } },
    ]);
    const [entry] = await inbox(store, new RunToolLoader());
    expect(entry).toMatchObject({
      nodeId: "route",
      item: 1,
      reason: escalation.reason,
      proposal: { name: "ticket" },
      instruction: UNRECORDED_INSTRUCTION,
      facts: {},
      allowSideEffects: false,
      recorded: false,
      tools: [],
    });
  });

  it("shows a call that waits for approval: the exact call (redacted), its reason, and no missing input", async () => {
    const store = new MemoryRunStore();
    const send = defineTool({
      name: "send",
      description: "Send a message",
      input: z.object({ to: z.string(), api_key: z.string() }),
      needsApproval: true,
      run: () => "sent",
    });
    const m = await runPlan(
      {
        name: "send",
        nodes: [{ id: "s", tool: "send", args: { to: "ops", api_key: "k-123456" }, store_as: "out" }],
      },
      { tools: [send], store },
    );
    expect(m.status).toBe("escalated");
    const [entry] = await inbox(store, new RunToolLoader());
    expect(entry).toMatchObject({
      nodeId: "s",
      kind: "approval",
      verdict: "approval_required",
      reason: expect.stringMatching(/requires approval before every call/),
      call: { name: "send", arguments: { to: "ops", api_key: "[REDACTED]" } },
      instruction: "",
      recorded: true,
    });
    expect(JSON.stringify(entry)).not.toContain("k-123456");
  });
});
