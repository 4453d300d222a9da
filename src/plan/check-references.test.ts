import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHost } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { validatePlan } from "./validate-plan.js";

const tools = [
  defineTool({ name: "src", description: "A list", input: z.object({}), run: () => [] }),
  defineTool({ name: "use", description: "Use a value", input: z.object({ v: z.unknown() }), run: () => 1 }),
];
const { host, nodeTypes } = createHost({ tools });
const issuesOf = (nodes: object[], extra: object = {}) =>
  validatePlan({ name: "p", nodes, ...extra }, { host, nodeTypes, knownArtifacts: ["seed"] }).issues.map(
    (i) => `${i.code}@${i.nodeId ?? "-"}${i.severity === "warning" ? "(warning)" : ""}`,
  );
const fan = {
  id: "fan",
  tool: "use",
  depends_on: ["a"],
  args: { v: "{item}" },
  store_as: "r_{index}",
  for_each: { source: "{artifacts.a}" },
};

describe("reference and store_as checks", () => {
  it("accept references to stored keys, per-item keys of a for_each, inputs and given artifacts", () => {
    expect(
      issuesOf(
        [
          { id: "a", tool: "src", store_as: "a" },
          fan,
          { id: "b", tool: "use", depends_on: ["fan"], args: { v: "{artifacts.r_2}" }, store_as: "b" },
          { id: "c", tool: "use", args: { v: "{inputs.q} and {artifacts.seed}" }, store_as: "c" },
        ],
        { inputs: { type: "object", properties: { q: { type: "string" } } } },
      ),
    ).toEqual([]);
  });

  it("name the producer that is not depended on, a self-reference and an artifact nothing stores", () => {
    expect(
      issuesOf([
        { id: "a", tool: "src", store_as: "a" },
        { id: "b", tool: "use", args: { v: "{artifacts.a}" }, store_as: "b" },
        { id: "c", tool: "use", args: { v: "{artifacts.c}" }, store_as: "c" },
        { id: "d", tool: "use", args: { v: "{artifacts.nowhere}" }, store_as: "d" },
        { ...fan, depends_on: [] },
        { id: "e", tool: "use", args: { v: "{artifacts.r_1}" }, store_as: "e" },
      ]),
    ).toEqual([
      "missing_dependency@b",
      "self_reference@c",
      "unknown_artifact@d",
      "missing_dependency@fan",
      "missing_dependency@e",
    ]);
  });

  it("accept a `returns` a node stores (or that is given), and name the one nothing stores", () => {
    const nodes = [
      { id: "a", tool: "src", store_as: "a" },
      fan,
      { id: "s", tool: "src", store_as: "summary" },
    ];
    expect(issuesOf(nodes, { returns: "summary" })).toEqual([]);
    expect(issuesOf(nodes, { returns: "r_3" })).toEqual([]);
    expect(issuesOf(nodes, { returns: "seed" })).toEqual([]);
    const report = validatePlan({ name: "p", nodes, returns: "sumary" }, { host, nodeTypes });
    expect(report.ok).toBe(false);
    expect(report.issues).toEqual([
      expect.objectContaining({
        code: "unknown_returns",
        path: "returns",
        message: 'returns "sumary": no node stores "sumary" (did you mean "summary"?)',
      }),
    ]);
  });

  it("require a per-item store_as under for_each and unique static keys", () => {
    expect(
      issuesOf([
        { id: "a", tool: "src", store_as: "a" },
        { ...fan, store_as: "same" },
        { id: "x", tool: "src", store_as: "dup" },
        { id: "y", tool: "src", store_as: "dup" },
      ]),
    ).toEqual(["store_as_not_per_item@fan", "duplicate_store_as@y"]);
  });

  it("flag item placeholders outside a for_each, and keep unknown roots as a warning", () => {
    expect(
      issuesOf([
        { id: "a", tool: "use", args: { v: "{item.id}" }, store_as: "a" },
        { id: "b", tool: "use", args: { v: "{other.thing}" }, store_as: "b" },
      ]),
    ).toEqual(["invalid_placeholder@a", "unknown_placeholder@b(warning)"]);
  });
});
