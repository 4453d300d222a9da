import { describe, expect, it } from "vitest";
import { defineTool } from "../tools/define-tool.js";
import { authorPlan } from "./author-plan.js";
import { scriptedModel } from "./scripted-model.js";

const fetchAlerts = defineTool({
  name: "fetch_alerts",
  description: "List the open alerts of a queue",
  input: { type: "object", properties: { queue: { type: "string" } }, required: ["queue"] },
  delegateSafe: true,
  run: () => [{ id: "a1" }],
});
const fileTicket = defineTool({
  name: "file_ticket",
  description: "File a ticket",
  input: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
  run: ({ summary }: { summary: string }) => ({ filed: summary }),
});
const wipe = defineTool({
  name: "wipe_database",
  description: "Delete everything",
  input: { type: "object" },
  run: () => "gone",
});
const tools = [fetchAlerts, fileTicket, wipe];
const allowedTools = ["fetch_alerts", "file_ticket"];

const good = {
  name: "alerts-to-ticket",
  nodes: [
    { id: "alerts", tool: "fetch_alerts", args: { queue: "ops" }, store_as: "alerts" },
    {
      id: "ticket",
      tool: "file_ticket",
      depends_on: ["alerts"],
      args: { summary: "Alerts: {artifacts.alerts}" },
      store_as: "ticket",
    },
  ],
};

async function author(answers: unknown[], extra: Record<string, unknown> = {}) {
  const model = await scriptedModel(answers.map((a) => (typeof a === "string" ? a : JSON.stringify(a))));
  const result = await authorPlan({
    objective: "File a ticket about the open ops alerts",
    tools,
    allowedTools,
    model,
    ...extra,
  });
  return { result, calls: model.doGenerateCalls };
}

describe("authorPlan", () => {
  it("returns a good plan answered the first time, after one call that saw the catalogue and the plan schema", async () => {
    const { result, calls } = await author([good]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.plan.name).toBe("alerts-to-ticket");
    expect(result.plan.objective).toBe("File a ticket about the open ops alerts"); // filled in
    expect(result.usage.calls).toBe(1);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.responseFormat).toMatchObject({ type: "json", name: "execution_plan" });
    const system = JSON.stringify(call.prompt[0]);
    expect(system).toContain("fetch_alerts");
    expect(system).toContain("delegate_safe");
    expect(system).not.toContain("wipe_database"); // the allowlist is all the model sees
    expect((call.responseFormat as { schema: { properties: object } }).schema.properties).toHaveProperty(
      "nodes",
    );
  });

  it("sends the issues of an invalid plan back once, and returns the corrected plan", async () => {
    const bad = { ...good, nodes: [{ ...good.nodes[0], args: {} }, good.nodes[1]] };
    const { result, calls } = await author([bad, good]);
    expect(result.ok).toBe(true);
    expect(result.usage.calls).toBe(2);
    const correction = JSON.stringify(calls[1]!.prompt.at(-1));
    expect(correction).toContain("[alerts]");
    expect(correction).toMatch(/missing_args|queue/);
    expect(JSON.stringify(calls[1]!.prompt)).toContain("assistant");
  });

  it("returns the issues that remain after the one correction round, and asks no third time", async () => {
    const { result, calls } = await author(["not json at all", { ...good, nodes: [] }, good]);
    expect(result.ok).toBe(false);
    expect(calls).toHaveLength(2);
    if (result.ok) return;
    expect(result.issues.length).toBeGreaterThan(0);
    expect(JSON.stringify(calls[1]!.prompt.at(-1))).toContain("not_json");
  });

  it("refuses a tool outside the allowlist, even one that exists", async () => {
    const sneaky = { ...good, nodes: [{ id: "x", tool: "wipe_database", args: {}, store_as: "x" }] };
    const { result } = await author([sneaky, sneaky]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.code)).toContain("unknown_tool");
  });

  it("treats hostile answers as issues: a field deputy does not know, a huge answer, deep nesting, the wrong shape", async () => {
    const unknownField = { ...good, run_shell: "rm -rf /" };
    const huge = JSON.stringify({ ...good, objective: "x".repeat(300_000) });
    const deep = "[".repeat(5000) + "]".repeat(5000);
    for (const [answer, code] of [
      [unknownField, "unknown_field"],
      [huge, "answer_too_large"],
      [deep, "too_deep"],
      [[1, 2, 3], "invalid_field"],
      ["", "not_json"],
    ] as const) {
      const { result } = await author([answer, answer]);
      expect(result.ok, code).toBe(false);
      if (!result.ok)
        expect(
          result.issues.map((i) => i.code),
          code,
        ).toContain(code);
    }
  });

  it("reads a plan wrapped in a Markdown code fence, and sets the declared inputs", async () => {
    const withInputs = {
      ...good,
      nodes: [{ ...good.nodes[0], args: { queue: "{inputs.queue}" } }, good.nodes[1]],
    };
    const inputs = { type: "object", properties: { queue: { type: "string" } }, required: ["queue"] };
    const { result, calls } = await author(["```json\n" + JSON.stringify(withInputs) + "\n```"], { inputs });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.plan.inputs).toEqual(inputs);
    expect(JSON.stringify(calls[0]!.prompt)).toContain("inputs.<key>");
  });

  it("throws MODEL_FAILED when the model cannot be asked (here: the script ran out)", async () => {
    const model = await scriptedModel([]);
    await expect(authorPlan({ objective: "x", tools, model })).rejects.toMatchObject({
      code: "MODEL_FAILED",
    });
  });

  it("refuses an allowlist naming a tool that does not exist", async () => {
    const model = await scriptedModel([]);
    await expect(authorPlan({ objective: "x", tools, model, allowedTools: ["nope"] })).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
  });
});
