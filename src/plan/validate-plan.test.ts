import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { placeholdersIn } from "../runtime/template.js";
import { createHost } from "../compose/index.js";
import { validatePlan } from "./validate-plan.js";

const tools = [
  defineTool({
    name: "fetch_alerts",
    description: "Fetch alerts",
    input: z.object({ source: z.string(), limit: z.number().optional() }),
    run: () => [],
  }),
  defineTool({
    name: "notify",
    description: "Notify",
    input: z.object({ text: z.string() }),
    run: () => true,
  }),
];

function check(plan: unknown) {
  const { host, nodeTypes } = createHost({ tools });
  return validatePlan(plan, { host, nodeTypes });
}

function codes(plan: unknown) {
  return check(plan).issues.map((i) => `${i.code}@${i.nodeId ?? "-"}`);
}

describe("validatePlan", () => {
  it("accepts a sound plan and applies the documented defaults", () => {
    const report = check({
      name: "ok",
      nodes: [
        { id: "fetch", tool: "fetch_alerts", args: { source: "x" }, store_as: "alerts" },
        {
          id: "each",
          tool: "notify",
          depends_on: ["fetch"],
          args: { text: "{item.title}" },
          store_as: "n_{index}",
          for_each: { source: "{artifacts.alerts}", select: "items[]" },
        },
      ],
    });
    expect(report.issues).toEqual([]);
    expect(report.plan!.metadata).toEqual({ max_parallel_tasks: 10, checkpoint: true });
    const each = report.plan!.nodes[1]!;
    expect(each.type).toBe("tool");
    expect(each.retry).toEqual({ max_attempts: 1, backoff_seconds: 0 });
    expect(each.for_each).toEqual({
      source: "{artifacts.alerts}",
      select: "items[]",
      as: "item",
      max_items: 1000,
      max_concurrency: 8,
      on_item_error: "collect",
      skip_existing: true,
    });
  });

  it("reports every issue in one pass, each with its code and node id", () => {
    const report = check({
      name: "bad",
      objective: "many problems",
      colour: "blue",
      nodes: [
        { id: "a", tool: "fetch_alerts", args: { source: "x" }, store_as: "alerts" },
        { id: "a", tool: "notify", args: { text: "hi" }, store_as: "dup" },
        { id: "b", tool: "notfy", args: {}, store_as: "b" },
        { id: "c", tool: "fetch_alerts", args: { limit: 1, sauce: "y" }, store_as: "c" },
        { id: "d", tool: "notify", depends_on: ["ee"], args: { text: "{artifacts.alerts}" }, store_as: "d" },
        { id: "e", tool: "notify", depends_on: ["f"], args: { text: "x" }, store_as: "e" },
        { id: "f", tool: "notify", depends_on: ["e"], args: { text: "x" }, store_as: "f", when: "ctx.x ==" },
        {
          id: "g",
          tool: "notify",
          depends_on: ["a"],
          args: { text: "{item}" },
          store_as: "g",
          for_each: { source: "{artifacts.alerts}", select: "items[x]" },
        },
        { id: "h", tool: "notify", args: { text: "x" }, store_as: "alerts" },
        { id: "i", tool: "notify", args: { text: "x" }, store_as: "i", retry: { max_attempts: 99 } },
      ],
    });
    expect(report.ok).toBe(false);
    const got = report.issues.map((i) => `${i.code}@${i.nodeId ?? "-"}`);
    expect(got).toEqual(
      expect.arrayContaining([
        "unknown_field@-",
        "duplicate_id@a",
        "unknown_tool@b",
        "missing_arg@c",
        "unknown_arg@c",
        "unknown_dependency@d",
        "missing_dependency@d",
        "cycle@e",
        "invalid_cel@f",
        "invalid_select@g",
        "store_as_not_per_item@g",
        "duplicate_store_as@h",
        "invalid_field@i",
      ]),
    );
    const byCode = (code: string) => report.issues.find((i) => i.code === code)!.message;
    expect(byCode("unknown_tool")).toContain('did you mean "notify"');
    expect(byCode("unknown_dependency")).toContain('did you mean "e"');
    expect(byCode("unknown_arg")).toContain('"sauce"');
    expect(byCode("cycle")).toMatch(/(e -> f -> e|f -> e -> f)/);
    expect(byCode("unknown_field")).toContain('"colour"');
  });

  it("suggests the allowed value an enum field's value is a typo of, and none for a value far from all", () => {
    const delegate = (on_reject: unknown) => ({
      name: "x",
      nodes: [{ id: "a", type: "delegate", instruction: "x", tools: ["notify"], on_reject, store_as: "r" }],
    });
    const message = (plan: unknown) => check(plan).issues.find((i) => i.code === "invalid_field")?.message;
    expect(message(delegate("escalte"))).toMatch(/on_reject: .*\(did you mean "escalate"\?\)$/);
    expect(message(delegate("retry-backend"))).toContain('(did you mean "retry_backend"?)');
    expect(message(delegate("page the on-call"))).not.toContain("did you mean");
    expect(message(delegate(7))).not.toContain("did you mean");
  });

  it("checks arguments written as literals against the tool's schema, as the call will; templated ones at run time", () => {
    const node = (args: Record<string, unknown>) => ({
      name: "x",
      nodes: [
        { id: "f", tool: "fetch_alerts", args: { source: "a" }, store_as: "alerts" },
        { id: "n", tool: "fetch_alerts", depends_on: ["f"], args, store_as: "n" },
      ],
    });
    const issues = (args: Record<string, unknown>) =>
      check(node(args)).issues.filter((i) => i.code === "invalid_arg");
    expect(issues({ source: 7 })).toEqual([
      expect.objectContaining({
        severity: "error",
        nodeId: "n",
        path: "args.source",
        message: 'tool "fetch_alerts" argument source: must be string',
      }),
    ]);
    expect(issues({ source: "x", limit: "ten" }).map((i) => i.path)).toEqual(["args.limit"]);
    // A placeholder is rendered when the node runs: its type is checked then, not now.
    expect(issues({ source: "{artifacts.alerts.name}", limit: "{artifacts.alerts.count}" })).toEqual([]);
    expect(issues({ source: "x", limit: 3 })).toEqual([]);
    // A missing argument is missing_arg, not also invalid_arg.
    expect(check(node({ limit: 3 })).issues.map((i) => i.code)).toEqual(["missing_arg"]);
  });

  it("reports a literal argument invalid exactly when the tool's schema refuses it (generated values)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (limit) => {
        const report = check({
          name: "x",
          nodes: [{ id: "a", tool: "fetch_alerts", args: { source: "s", limit }, store_as: "a" }],
        });
        // A value holding a placeholder anywhere (a nested string too) is checked when it is rendered, not here;
        // text in braces that is no placeholder (`{}`, `{ a }`) is literal.
        const literal = placeholdersIn(limit).length === 0;
        const invalid = report.issues.some((i) => i.code === "invalid_arg");
        expect(invalid).toBe(literal && typeof limit !== "number");
      }),
      { numRuns: 300 },
    );
  });

  it("rejects unknown fields inside nodes and for_each", () => {
    expect(
      codes({
        name: "x",
        nodes: [
          { id: "a", tool: "notify", args: { text: "x" }, store_as: "a", stor_as: "b" },
          {
            id: "b",
            tool: "notify",
            args: { text: "x" },
            store_as: "b_{index}",
            depends_on: ["a"],
            for_each: { source: "{artifacts.a}", max_item: 3 },
          },
        ],
      }),
    ).toEqual(["unknown_field@a", "unknown_field@b"]);
  });

  it("flags item placeholders outside for_each and a wrong alias", () => {
    const issues = check({
      name: "x",
      nodes: [
        { id: "a", tool: "notify", args: { text: "{item.title}" }, store_as: "a" },
        {
          id: "b",
          tool: "notify",
          depends_on: ["a"],
          args: { text: "{item.title}" },
          store_as: "b_{index}",
          for_each: { source: "{artifacts.a}", as: "alert" },
        },
      ],
    }).issues;
    expect(issues.map((i) => `${i.code}@${i.nodeId}`)).toEqual([
      "invalid_placeholder@a",
      "invalid_placeholder@b",
    ]);
    expect(issues[1]!.message).toContain('alias is "alert"');
  });

  it("parses the seed's delegate node unchanged", () => {
    // The seed's example, copied verbatim into the repository's fixtures (tests read only the repository's files).
    const json = readFileSync(
      new URL("../../test/fixtures/seeds/delegate-node.json", import.meta.url),
      "utf8",
    );
    const node = JSON.parse(json) as Record<string, unknown>;
    expect(node).toMatchObject({ id: "triage_items", type: "delegate", for_each: { select: "alerts[]" } });
    const report = check({
      name: "seed",
      nodes: [
        { id: "fetch_alerts", tool: "fetch_alerts", args: { source: "x" }, store_as: "fetch_alerts" },
        node,
      ],
    });
    const structural = report.issues.filter((i) => i.code === "unknown_field" || i.code === "invalid_field");
    expect(structural).toEqual([]);
  });
});
