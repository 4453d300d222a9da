/**
 * The builder writes exactly the JSON a plan file holds: a plan built with it and the same plan written by hand
 * are equal as JSON, have one fingerprint, and validate with the same issues — valid plans and invalid ones alike
 * (the builder checks nothing itself, so an invalid plan fails where it runs, as its file would).
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tools as alertTools } from "../../examples/alert-triage/tools.mjs";
import { createHost, plan, type PlanInput } from "../compose/index.js";
import { defineNodeType } from "../plan/node-type.js";
import { defineTool } from "../tools/define-tool.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { planFingerprint } from "./fingerprint.js";
import { validatePlan } from "./validate-plan.js";

const echo = defineTool({
  name: "echo",
  description: "Answers with its value",
  input: z.object({ value: z.unknown() }),
  delegateSafe: true,
  run: ({ value }) => value,
});
const waitNodeType = defineNodeType({
  name: "wait",
  fields: { seconds: z.number().min(0).max(60) },
  executor: { execute: async (node) => ({ status: "ok", value: { waited: node.seconds } }) },
});
const host = createHost({
  tools: [echo, ...alertTools],
  delegates: [new ScriptedDelegate({ entries: [] })],
  agents: {},
  nodeTypes: [waitNodeType],
});

/** What the CLI does with a plan file: JSON text, parsed, validated. */
function viaFile(p: unknown) {
  const json: unknown = JSON.parse(JSON.stringify(p));
  return { json, fingerprint: planFingerprint(json), issues: validatePlan(json, host).issues };
}

function expectSamePlan(built: PlanInput<typeof waitNodeType>, handWritten: unknown) {
  const a = viaFile(built);
  const b = viaFile(handWritten);
  expect(built).toEqual(a.json); // build() already gives JSON values
  expect(a.json).toEqual(b.json);
  expect(a.fingerprint).toBe(b.fingerprint);
  expect(a.issues).toEqual(b.issues);
  return a.issues;
}

describe("plan() builds the JSON a plan file holds", () => {
  it("the example's plan, built, is examples/alert-triage/plan.json and validates the same (no errors)", () => {
    const file: unknown = JSON.parse(
      readFileSync(new URL("../../examples/alert-triage/plan.json", import.meta.url), "utf8"),
    );
    const built = plan("alert-triage", {
      objective:
        "Fetch the open alerts and let a small model pick one action for each (page, ticket or ignore); the accept gate decides what runs.",
      metadata: { max_parallel_tasks: 4 },
    })
      .tool("fetch_alerts", { tool: "fetch_alerts", args: { file: "alerts.json" }, store_as: "fetch_alerts" })
      .delegate("triage_items", {
        depends_on: ["fetch_alerts"],
        store_as: "triage_result_{index}",
        instruction: "Analyze this alert and select the most appropriate action: {item.summary}",
        facts: { alert_id: "{item.id}", severity: "{item.severity}", environment: "production" },
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
      })
      .build();
    const issues = expectSamePlan(built, file);
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
  });

  it("an unknown tool, a cycle and a bad reference: the same issues as the hand-written plan", () => {
    const built = plan("broken")
      .tool("a", { tool: "ecoh", args: { value: 1 }, store_as: "a" })
      .tool("b", { tool: "echo", depends_on: ["c"], args: { value: "{artifacts.c}" }, store_as: "b" })
      .tool("c", { tool: "echo", depends_on: ["b"], args: { value: "{artifacts.a}" }, store_as: "c" })
      .delegate("d", {
        instruction: "Use {artifacts.nowhere}",
        tools: ["echo"],
        depends_on: ["e"],
        store_as: "d",
      })
      .build();
    const issues = expectSamePlan(built, {
      name: "broken",
      nodes: [
        { id: "a", tool: "ecoh", args: { value: 1 }, store_as: "a" },
        { id: "b", tool: "echo", depends_on: ["c"], args: { value: "{artifacts.c}" }, store_as: "b" },
        { id: "c", tool: "echo", depends_on: ["b"], args: { value: "{artifacts.a}" }, store_as: "c" },
        {
          id: "d",
          type: "delegate",
          instruction: "Use {artifacts.nowhere}",
          tools: ["echo"],
          depends_on: ["e"],
          store_as: "d",
        },
      ],
    });
    const codes = issues.map((i) => `${i.code}@${i.nodeId}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        "unknown_tool@a",
        "cycle@b",
        "unknown_dependency@d",
        "missing_dependency@c",
        "unknown_artifact@d",
      ]),
    );
  });

  it("a node type of your own gets a method; `node()` adds any registered type", () => {
    const built = plan("waits", { nodeTypes: [waitNodeType] })
      .wait("first", { seconds: 1, store_as: "first" })
      .node("wait", "second", { seconds: 99, depends_on: ["first"], store_as: "second" })
      .build();
    const issues = expectSamePlan(built, {
      name: "waits",
      nodes: [
        { id: "first", type: "wait", seconds: 1, store_as: "first" },
        { id: "second", type: "wait", seconds: 99, depends_on: ["first"], store_as: "second" },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual(["nodes[1].seconds"]); // 99 > max 60
  });

  it("each call gives a new builder, so a common start can be shared", () => {
    const start = plan("shared").tool("a", { tool: "echo", args: { value: 1 }, store_as: "a" });
    const one = start.tool("b", { tool: "echo", args: { value: 2 }, store_as: "b" }).build();
    const other = start.build();
    expect(one.nodes.map((n) => n.id)).toEqual(["a", "b"]);
    expect(other.nodes.map((n) => n.id)).toEqual(["a"]);
  });

  it("JavaScript callers: fields that are not an object, or that hold `id` or `type`, fail at once", () => {
    const loose = plan("js") as unknown as {
      tool(id: string, fields: unknown): unknown;
      node(type: string, id: string, fields: unknown): unknown;
    };
    expect(() => loose.tool("a", "echo")).toThrow(
      'Expected `fields of node "a"` to be an object of the node\'s fields, got "echo".',
    );
    expect(() => loose.tool("a", { id: "b", tool: "echo", store_as: "a" })).toThrow(/fields\.id of node "a"/);
    expect(() => loose.node("delegate", "a", { type: "agent" })).toThrow(/fields\.type of node "a"/);
  });
});

// Generated builder calls: each kind of node with fields drawn from valid and invalid values (unknown tools,
// references to ids that may not exist or form cycles, out-of-range numbers, fields left undefined).
const ids = ["a", "b", "c", "d"];
const id = fc.constantFrom(...ids);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const common = {
  store_as: fc.constantFrom("a", "b", "out_{index}", "{item.id}"),
  depends_on: maybe(fc.uniqueArray(id, { maxLength: 3 })),
  when: maybe(fc.constantFrom("true", "ctx.status == 'ok'", "((")),
  description: maybe(fc.string({ maxLength: 8 })),
  timeout: maybe(fc.constantFrom(1, 0, 30)),
  retry: maybe(fc.record({ max_attempts: fc.integer({ min: 0, max: 11 }) }, { requiredKeys: [] })),
  for_each: maybe(
    fc.record(
      {
        source: fc.constantFrom("{artifacts.a}", "{artifacts.b}", "a"),
        max_concurrency: maybe(fc.integer({ min: 0, max: 70 })),
      },
      { requiredKeys: ["source"] },
    ),
  ),
};
const template = fc.constantFrom("plain", "{artifacts.a}", "{artifacts.b.x}", "{item}", "{artifacts.zzz}");
const nodeCall = fc.oneof(
  fc.record({
    kind: fc.constant("tool" as const),
    id,
    fields: fc.record({
      ...common,
      tool: fc.constantFrom("echo", "ecoh", "fetch_alerts"),
      args: maybe(fc.dictionary(fc.constantFrom("value", "file", "extra"), template)),
    }),
  }),
  fc.record({
    kind: fc.constant("delegate" as const),
    id,
    fields: fc.record({
      ...common,
      instruction: template,
      tools: fc.uniqueArray(fc.constantFrom("echo", "ignore_alert", "nope"), { minLength: 0, maxLength: 3 }),
      facts: maybe(fc.dictionary(fc.constantFrom("k", "severity"), template)),
      min_confidence: maybe(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
      on_reject: maybe(fc.constantFrom("fail" as const, "retry_backend" as const, "escalate" as const)),
      escalate_to: maybe(fc.constantFrom("helper")),
    }),
  }),
  fc.record({
    kind: fc.constant("agent" as const),
    id,
    fields: fc.record({
      ...common,
      agent: fc.constantFrom("helper", "other"),
      action: maybe(fc.constantFrom("run")),
      input: maybe(fc.dictionary(fc.constantFrom("q"), template)),
    }),
  }),
  fc.record({
    kind: fc.constant("wait" as const),
    id,
    fields: fc.record({ ...common, seconds: fc.integer({ min: -1, max: 61 }) }),
  }),
);

// The same node as a person writes it in a file: `type` for all but tool nodes, no field left undefined.
function handWritten(call: { kind: string; id: string; fields: Record<string, unknown> }) {
  const fields = Object.fromEntries(Object.entries(call.fields).filter(([, v]) => v !== undefined));
  return call.kind === "tool" ? { id: call.id, ...fields } : { id: call.id, type: call.kind, ...fields };
}

describe("generated builder calls", () => {
  it("build the hand-written equivalent JSON, with the same fingerprint and the same issues", () => {
    fc.assert(
      fc.property(
        fc.array(nodeCall, { minLength: 1, maxLength: 6 }),
        maybe(fc.record({ max_parallel_tasks: fc.integer({ min: 0, max: 200 }) })),
        (calls, metadata) => {
          let builder = plan("generated", { nodeTypes: [waitNodeType], ...(metadata ? { metadata } : {}) });
          for (const call of calls) builder = builder.node(call.kind, call.id, call.fields as never);
          expectSamePlan(builder.build(), {
            name: "generated",
            ...(metadata ? { metadata } : {}),
            nodes: calls.map(handWritten),
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
