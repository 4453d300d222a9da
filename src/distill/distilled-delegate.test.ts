import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DelegateBackendError } from "../errors/index.js";
import { toTool } from "../tools/index.js";
import { acceptGate } from "../delegate/accept-gate.js";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import type { ToolSpec } from "../delegate/protocol.js";
import { alertTriageExamples, alertTriageModel, alertTriageTools } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { saveModelFile } from "./model-file.js";
import { exactMatch } from "./training-examples.js";
import { bfclQuestion } from "../eval/bfcl.js";
import { loadAllBfclSamples } from "../../test/bfcl-fixtures.js";

const specs = defaultDelegateSpecs();
const createDelegateFromSpec = (spec: string) => specs.create(spec);

const context = { runId: "r", nodeId: "triage_items" };
const facts = { alert_id: "ALR-1001", severity: "critical", environment: "production" };
const instruction = (summary: string) =>
  `Analyze this alert and select the most appropriate action: ${summary}`;

function delegate() {
  return new DistilledDelegate({ model: alertTriageModel().model });
}

function withTool(tools: ToolSpec[], name: string, change: (t: ToolSpec) => ToolSpec): ToolSpec[] {
  return tools.map((t) => (t.name === name ? change(structuredClone(t)) : t));
}

describe("DistilledDelegate on the alert-triage example", () => {
  it("learns the node's calls: held-out accuracy and precision at the recommended threshold", () => {
    const result = alertTriageModel();
    expect(result.heldOutExamples + result.tuningExamples).toBe(alertTriageExamples("heldOut").length);
    expect(result.tuningExamples).toBe(Math.ceil(alertTriageExamples("heldOut").length / 2));
    expect(result.heldOutAccuracy!).toBeGreaterThan(0.75);
    expect(result.recommendedMinConfidence).toBeGreaterThan(0.5);
    expect(result.recommendedMinConfidence).toBeLessThan(1);
    const at = result.heldOutTable.find((t) => t.threshold === result.recommendedMinConfidence)!;
    expect(at.coverage).toBeGreaterThan(0.15);
    expect(at.precision!).toBeGreaterThanOrEqual(0.95);
    expect(result.model.training.heldOutPrecision).toBe(at.precision);
  });

  it("proposes whole calls whose confidence the gate can trust", async () => {
    const d = delegate();
    const min = d.model.recommendedMinConfidence;
    const tools = alertTriageTools();
    const find = new Map(
      tools.map((t) => [t.name, toTool({ ...t, input: t.parameters, delegateSafe: true, run: () => null })]),
    );
    let accepted = 0;
    let wrongAccepted = 0;
    for (const e of alertTriageExamples("heldOut")) {
      const proposal = await d.propose({ instruction: e.instruction, facts: e.facts, tools, context });
      expect(proposal.backend).toBe("distilled");
      expect(proposal.confidence).toBeGreaterThanOrEqual(0);
      expect(proposal.confidence).toBeLessThanOrEqual(1);
      const gate = acceptGate({
        proposal,
        candidates: tools.map((t) => t.name),
        findTool: (n) => find.get(n),
        allowSideEffects: { node: false, host: false },
        minConfidence: min,
      });
      if (gate.verdict === "accepted") {
        accepted++;
        if (!exactMatch(proposal, e.call)) wrongAccepted++;
      } else {
        expect(["low_confidence", "invalid_args"]).toContain(gate.verdict);
      }
    }
    expect(accepted).toBeGreaterThan(0);
    expect(wrongAccepted / accepted).toBeLessThanOrEqual(0.05);
  });

  it("copies spans and classes: a page for a critical outage, with the alert's id and text", async () => {
    const summary = "Checkout API error rate at 38% for 10 minutes; payments failing in eu-west-1";
    const p = await delegate().propose({
      instruction: instruction(summary),
      facts,
      tools: alertTriageTools(),
      context,
    });
    expect(p).toMatchObject({
      name: "escalate_to_pagerduty",
      arguments: { alert_id: "ALR-1001", urgency: "high", summary },
    });
  });

  it("is unsure of what it never saw: ≥ 95% of out-of-domain, gibberish and empty inputs fall below the threshold", async () => {
    const d = delegate();
    const min = d.model.recommendedMinConfidence;
    const tools = alertTriageTools();
    const otherDomain = [
      "What is the area of a triangle with a base of 10 units and a height of 5 units?",
      "Book a table for two at an Italian restaurant downtown tonight at 8pm",
      "Translate 'good morning' into French and Spanish",
      "Find the cheapest flight from Boston to Denver next Friday",
      "How many calories are in a medium banana?",
      "Convert 150 US dollars to euros at today's rate",
      "Write a haiku about autumn leaves",
      "Calculate the compound interest on $5000 at 4% for 3 years",
      "What's the weather forecast for Tokyo this weekend?",
      "Recommend three science fiction novels similar to Dune",
      "Sort the list [5, 3, 9, 1] in ascending order",
      "Who won the football world cup in 2010?",
      "Set a reminder to call mom tomorrow at noon",
      "Play some relaxing jazz music in the living room",
      "Summarise the plot of Hamlet in two sentences",
      "Find the derivative of x squared plus three x",
      "Order a large pepperoni pizza for delivery",
      "What is the capital city of Australia?",
      "List the planets of the solar system by size",
      "Schedule a dentist appointment for next Tuesday morning",
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const gibberish = Array.from({ length: 60 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
        Array.from(
          { length: 2 + Math.floor(random() * 8) },
          () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(random() * 36)],
        ).join(""),
      ).join(" "),
    );
    const empty = ["", " ", "   ", "\n", "-", "..."];
    // Another domain at scale: every BFCL question (maths, weather, finance, sports…) as if it were an alert.
    const bfcl = loadAllBfclSamples().map(({ sample }) => bfclQuestion(sample).slice(0, 400));
    const summaries = [...otherDomain, ...gibberish, ...empty, ...bfcl];
    const severities = ["critical", "high", "medium", "low", "info"];
    let below = 0;
    let total = 0;
    for (const summary of summaries) {
      for (const severity of severities) {
        // Rendered the way the node renders them, and also as a bare instruction.
        for (const text of [instruction(summary), summary]) {
          const p = await d.propose({ instruction: text, facts: { ...facts, severity }, tools, context });
          total++;
          if ((p.confidence ?? 0) < min) below++;
        }
      }
    }
    expect(total).toBe(summaries.length * severities.length * 2);
    expect(below / total).toBeGreaterThanOrEqual(0.95);
  });

  it("declines when the node offers no tool", async () => {
    const p = await delegate().propose({ instruction: instruction("anything"), facts, tools: [], context });
    expect(p).toMatchObject({ name: null, arguments: {} });
  });

  it("serves a node whose tools only changed in prose, or gained an optional argument", async () => {
    const d = delegate();
    let tools = withTool(alertTriageTools(), "ignore_alert", (t) => ({ ...t, description: "Do nothing." }));
    tools = withTool(tools, "file_jira_ticket", (t) => {
      (t.parameters.properties as Record<string, unknown>).labels = {
        type: "array",
        items: { type: "string" },
      };
      return t;
    });
    const p = await d.propose({
      instruction: instruction("Staging disk usage at 91% on build agent 2"),
      facts,
      tools,
      context,
    });
    expect(p.name).not.toBeNull();
  });

  it.each([
    [
      "an enum lost a value the model can propose",
      (tools: ToolSpec[]) =>
        withTool(tools, "escalate_to_pagerduty", (t) => {
          (t.parameters.properties as Record<string, { enum?: string[] }>).urgency!.enum = ["high"];
          return t;
        }),
      /changed argument "urgency".*"low"/,
    ],
    [
      "a new required argument",
      (tools: ToolSpec[]) =>
        withTool(tools, "ignore_alert", (t) => {
          (t.parameters.properties as Record<string, unknown>).owner = { type: "string" };
          (t.parameters.required as string[]).push("owner");
          return t;
        }),
      /now requires "owner"/,
    ],
    [
      "a removed argument",
      (tools: ToolSpec[]) =>
        withTool(tools, "ignore_alert", (t) => {
          delete (t.parameters.properties as Record<string, unknown>).reason;
          t.parameters.required = ["alert_id"];
          return t;
        }),
      /no longer declares argument "reason"/,
    ],
    [
      "an unknown tool",
      (tools: ToolSpec[]) => [
        ...tools,
        { name: "restart_service", description: "Restart it.", parameters: { type: "object" } },
      ],
      /"restart_service" is not one the model was trained on/,
    ],
  ])(
    "refuses with backend_error, never a wrong call, when a tool changed: %s",
    async (_, change, message) => {
      const tools = change(alertTriageTools());
      const d = delegate();
      let error: unknown;
      await d
        .propose({ instruction: instruction("Checkout is down"), facts, tools, context })
        .catch((e) => (error = e));
      expect(DelegateBackendError.isInstance(error)).toBe(true);
      expect((error as DelegateBackendError).code).toBe("DISTILLED_TOOLS_CHANGED");
      expect((error as Error).message).toMatch(message);
      const gate = acceptGate({
        proposal: undefined,
        backendError: error,
        candidates: tools.map((t) => t.name),
        findTool: () => undefined,
        allowSideEffects: { node: true, host: true },
      });
      expect(gate.verdict).toBe("backend_error");
    },
  );

  it("refuses an input without a fact every training input had", async () => {
    const { alert_id: _, ...noId } = facts;
    await expect(
      delegate().propose({
        instruction: instruction("Checkout is down"),
        facts: noId,
        tools: alertTriageTools(),
        context,
      }),
    ).rejects.toThrow(/lacks alert_id/);
  });

  it("ends aborted proposals and refuses proposals after close()", async () => {
    const d = delegate();
    const request = {
      instruction: instruction("Checkout is down"),
      facts,
      tools: alertTriageTools(),
      context,
    };
    await expect(d.propose({ ...request, signal: AbortSignal.abort() })).rejects.toSatisfy(
      DelegateBackendError.isInstance,
    );
    await d.close();
    await d.close();
    await expect(d.propose(request)).rejects.toSatisfy(DelegateBackendError.isInstance);
  });

  it("loads from a model file, also through --delegate distilled=FILE, and predicts the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "distilled-"));
    const path = join(dir, "model.json");
    saveModelFile(path, alertTriageModel().model);
    const fromFile = await createDelegateFromSpec(`distilled=${path},name=triage-model`);
    expect(fromFile).toBeInstanceOf(DistilledDelegate);
    expect(fromFile.name).toBe("triage-model");
    const request = {
      instruction: instruction("Search index rebuild took 12% longer than last week"),
      facts: { ...facts, severity: "low" },
      tools: alertTriageTools(),
      context,
    };
    const a = await fromFile.propose(request);
    const b = await delegate().propose(request);
    expect(a.name).toBe(b.name);
    expect(a.arguments).toEqual(b.arguments);
    expect(a.confidence).toBeCloseTo(b.confidence!, 3);
    writeFileSync(path, "{ not json");
    expect(() => new DistilledDelegate({ model: path })).toThrow(/is not JSON/);
  });
});
