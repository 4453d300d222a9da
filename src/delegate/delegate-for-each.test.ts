/**
 * End to end: the seed's example delegate node under for_each (memory store) — accepted, rejected and escalated
 * items in one run, per-item verdicts in the manifest, then resolve + resume, with no new proposals for stored
 * items (skip_existing).
 */
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { resumeRun, runPlan } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { MemoryTraceSink } from "../traces/memory-trace-sink.js";
import { ScriptedDelegate, type ScriptedEntry } from "./scripted-delegate.js";

/** The seed's node, unchanged. */
const seedNode = {
  id: "triage_items",
  type: "delegate",
  depends_on: ["fetch_alerts"],
  store_as: "triage_result_{index}",
  instruction: "Analyze this alert and select the most appropriate action: {item.summary}",
  facts: { severity: "{item.severity}", environment: "production" },
  tools: ["escalate_to_pagerduty", "file_jira_ticket", "ignore_alert"],
  min_confidence: 0.8,
  on_reject: "escalate",
  allow_side_effects: false,
  for_each: {
    source: "{artifacts.fetch_alerts}",
    select: "alerts[]",
    as: "item",
    max_items: 50,
    max_concurrency: 4,
    on_item_error: "collect",
    skip_existing: true,
  },
};

const alerts = [
  { id: "A1", severity: "critical", summary: "Checkout errors at 38%" },
  { id: "A2", severity: "low", summary: "Index rebuild slower" },
  { id: "A3", severity: "high", summary: "Login latency above 4s" },
  { id: "A4", severity: "info", summary: "Certificate renews in 29 days" },
  { id: "A5", severity: "medium", summary: "Export job failed once" },
  { id: "A6", severity: "medium", summary: "Crash rate up" },
];

const sent: string[] = [];
const action = (name: string, required: string[], properties: Record<string, unknown>) =>
  defineTool({
    name,
    description: name,
    delegateSafe: true,
    input: {
      type: "object",
      properties: { alert_id: { type: "string" }, ...properties },
      required: ["alert_id", ...required],
    },
    run: (args: { alert_id: string }, ctx) => {
      if (args.alert_id === "A6") throw new Error("Jira is down");
      sent.push(`${name}:${args.alert_id}:${ctx.itemIndex}`);
      return { action: name, alert_id: args.alert_id };
    },
  });
const tools = [
  defineTool({
    name: "fetch_alerts",
    description: "alerts",
    delegateSafe: true,
    input: { type: "object" },
    run: () => ({ alerts }),
  }),
  action("escalate_to_pagerduty", ["urgency"], { urgency: { type: "string", enum: ["high", "low"] } }),
  action("file_jira_ticket", ["priority"], { priority: { type: "string", enum: ["P2", "P3", "P4"] } }),
  action("ignore_alert", ["reason"], { reason: { type: "string" } }),
];

const entries: ScriptedEntry[] = [
  {
    node: "triage_items",
    item: 0,
    proposal: {
      name: "escalate_to_pagerduty",
      arguments: { alert_id: "A1", urgency: "high" },
      confidence: 0.97,
    },
  },
  {
    node: "triage_items",
    item: 1,
    proposal: { name: "ignore_alert", arguments: { alert_id: "A2", reason: "trend only" }, confidence: 0.8 },
  },
  {
    node: "triage_items",
    item: 2,
    proposal: { name: "file_jira_ticket", arguments: { alert_id: "A3", priority: "P2" }, confidence: 0.55 },
  },
  {
    node: "triage_items",
    item: 3,
    proposal: {
      name: "ignore_alert",
      arguments: { alert_id: "A4", reason: "auto-renew", urgency: "low" },
      confidence: 0.9,
    },
  },
  { node: "triage_items", item: 4, proposal: { name: null, confidence: 0.6 } },
  {
    node: "triage_items",
    item: 5,
    proposal: { name: "file_jira_ticket", arguments: { alert_id: "A6", priority: "P3" }, confidence: 0.85 },
  },
];

const plan = {
  name: "alert-triage",
  nodes: [{ id: "fetch_alerts", tool: "fetch_alerts", store_as: "fetch_alerts" }, seedNode],
};

describe("the seed's delegate node under for_each", () => {
  it("accepts, rejects and escalates items, then finishes after resolve + resume without new proposals", async () => {
    const store = new MemoryRunStore();
    const sink = new MemoryTraceSink();
    const delegate = new ScriptedDelegate({ entries });
    const m = await runPlan(plan, { tools, store, delegates: [delegate], traceSink: sink });

    expect(m.status).toBe("escalated");
    const node = m.nodes.triage_items!;
    expect(node.status).toBe("escalated");
    expect(node.items).toMatchObject({ total: 6, ok: 2, error: 1, escalated: 3 });
    const verdicts = Object.fromEntries(
      Object.entries(node.itemDetails ?? {}).map(([i, d]) => [i, d.verdict]),
    );
    expect(verdicts).toEqual({
      0: "accepted",
      1: "accepted",
      2: "low_confidence",
      3: "invalid_args",
      4: "declined",
      5: "accepted",
    });
    expect(node.escalations.map((e) => [e.item, e.verdict])).toEqual([
      [2, "low_confidence"],
      [3, "invalid_args"],
      [4, "declined"],
    ]);
    expect(node.errors).toEqual([expect.objectContaining({ item: 5, message: "Jira is down" })]);
    expect(m.artifacts.triage_result_0).toEqual({ action: "escalate_to_pagerduty", alert_id: "A1" });
    expect(sent.sort()).toEqual(["escalate_to_pagerduty:A1:0", "ignore_alert:A2:1"]);
    expect(sink.traces).toHaveLength(6);
    expect(delegate.requests[0]!.instruction).toBe(
      "Analyze this alert and select the most appropriate action: Checkout errors at 38%",
    );
    expect(delegate.requests[0]!.facts).toEqual({ severity: "critical", environment: "production" });

    // A person decides the three escalations.
    await store.write(m.runId, [
      {
        kind: "resolution",
        nodeId: "triage_items",
        item: 2,
        resolution: {
          kind: "call",
          call: { name: "file_jira_ticket", arguments: { alert_id: "A3", priority: "P2" } },
        },
      },
      {
        kind: "resolution",
        nodeId: "triage_items",
        item: 3,
        resolution: { kind: "value", value: { action: "none", why: "expected" } },
      },
      { kind: "resolution", nodeId: "triage_items", item: 4, resolution: { kind: "skip" } },
    ]);
    // Item 5 failed, so resume retries it (and it fails again); stored items are never proposed again.
    const again = new ScriptedDelegate({ entries: [entries[5]!] });
    const r = await resumeRun(m.runId, { store, tools, delegates: [again], traceSink: sink });
    expect(again.requests.map((q) => q.context?.item)).toEqual([5]);
    expect(r.nodes.triage_items!.items).toMatchObject({ total: 6, escalated: 0, skipped: 1 });
    expect(r.artifacts.triage_result_2).toEqual({ action: "file_jira_ticket", alert_id: "A3" });
    expect(r.artifacts.triage_result_3).toEqual({ action: "none", why: "expected" });
    expect(sent.filter((s) => s.startsWith("escalate_to_pagerduty"))).toHaveLength(1);
    expect(
      sink.traces
        .slice(6)
        .map((t) => `${t.item}:${t.source}:${t.verdict}`)
        .sort(),
    ).toEqual(["2:person:accepted", "5:delegate:accepted"]);
    // Item 5's tool failed again (collect): the run is partial.
    expect(r.status).toBe("partial");
  });
});
