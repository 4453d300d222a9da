import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runPlan } from "../compose/index.js";
import { loadToolsModule } from "../tools/load-tools-module.js";
import { MemoryTraceSink } from "../traces/memory-trace-sink.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { alertTriageModel } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";

const example = (file: string) =>
  fileURLToPath(new URL(`../../examples/alert-triage/${file}`, import.meta.url));
const alerts = (
  JSON.parse(readFileSync(example("alerts.json"), "utf8")) as {
    alerts: { id: string; severity: string; summary: string }[];
  }
).alerts;

// The teacher (standing in for the LLM behind the distilled model): the right call for every alert, by the rules
// the example's generator documents; it declines the gibberish alert.
function teacherCall(a: (typeof alerts)[number]): {
  name: string | null;
  arguments?: Record<string, unknown>;
} {
  const page = ["ALR-1001", "ALR-1006", "ALR-1009"];
  const ticket = ["ALR-1002", "ALR-1003", "ALR-1007", "ALR-1011"];
  const reasons: Record<string, string> = {
    "ALR-1004": "self-resolved",
    "ALR-1005": "informational",
    "ALR-1008": "non-production",
    "ALR-1010": "informational",
  };
  if (page.includes(a.id))
    return {
      name: "escalate_to_pagerduty",
      arguments: { alert_id: a.id, urgency: a.severity === "critical" ? "high" : "low", summary: a.summary },
    };
  if (ticket.includes(a.id))
    return {
      name: "file_jira_ticket",
      arguments: {
        alert_id: a.id,
        project: "OPS",
        priority: { high: "P2", medium: "P3", low: "P4" }[a.severity],
        title: a.summary,
      },
    };
  if (reasons[a.id]) return { name: "ignore_alert", arguments: { alert_id: a.id, reason: reasons[a.id] } };
  return { name: null };
}

describe("the cascade: distilled first, the LLM behind it (on_reject: retry_backend)", () => {
  const outbox = process.env.DEPUTY_OUTBOX;
  afterAll(() => {
    if (outbox === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = outbox;
  });

  it("decides what it is sure of in-process and hands the rest to the next backend", async () => {
    process.env.DEPUTY_OUTBOX = join(mkdtempSync(join(tmpdir(), "cascade-")), "outbox.jsonl");
    const distilled = new DistilledDelegate({ model: alertTriageModel().model });
    const teacher = new ScriptedDelegate({
      name: "llm",
      entries: alerts.map((a, item) => ({
        node: "triage_items",
        item,
        proposal: { ...teacherCall(a), confidence: 0.99 },
      })),
    });
    const plan = JSON.parse(readFileSync(example("plan.json"), "utf8"));
    const node = plan.nodes.find((n: { id: string }) => n.id === "triage_items");
    Object.assign(node, {
      on_reject: "retry_backend",
      min_confidence: distilled.model.recommendedMinConfidence,
    });
    const sink = new MemoryTraceSink();
    const { tools } = await loadToolsModule(example("tools.mjs"));
    const manifest = await runPlan(plan, { tools, delegates: [distilled, teacher], traceSink: sink });

    const decided = (backend: string) =>
      sink.traces.filter((t) => t.backend === backend && t.verdict === "accepted");
    const byDistilled = decided("distilled");
    const byTeacher = decided("llm");
    expect(byDistilled.length).toBeGreaterThan(0);
    expect(byTeacher.length).toBeGreaterThan(0);
    // Everything the distilled model accepted is the right call; the teacher was asked only about the rest.
    for (const t of byDistilled) expect(t.finalCall).toEqual(teacherCall(alerts[t.item!]!));
    const distilledItems = new Set(byDistilled.map((t) => t.item));
    for (const t of sink.traces.filter((x) => x.backend === "llm"))
      expect(distilledItems.has(t.item)).toBe(false);
    // The gibberish alert: the distilled model is unsure, the teacher declines, the item fails (collected).
    expect(sink.traces.filter((t) => t.item === 11).map((t) => [t.backend, t.verdict])).toEqual([
      ["distilled", "low_confidence"],
      ["llm", "declined"],
    ]);
    expect(byDistilled.length + byTeacher.length).toBe(11);
    expect(manifest.status).toBe("partial");
  });
});
