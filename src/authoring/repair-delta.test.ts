import { describe, expect, it } from "vitest";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { createHost } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { checkRepairDelta, type DeltaContext } from "./repair-delta.js";
import { renderRepairDiff } from "./repair-diff.js";

const input = { type: "object", properties: { q: { type: "string" } }, required: ["q"] } as const;
const tool = (name: string) =>
  defineTool({ name, description: name, input, delegateSafe: true, run: () => name });
const tools = [tool("search_v1"), tool("search_v2"), tool("lookup"), tool("wipe")];
const allowedTools = ["search_v1", "search_v2", "lookup"];
const { host, nodeTypes } = createHost({
  tools: tools.filter((t) => allowedTools.includes(t.name)),
  delegates: [new ScriptedDelegate({ entries: [] })],
});

const deltaPlan = {
  name: "triage",
  nodes: [
    { id: "list", tool: "lookup", args: { q: "all" }, store_as: "listed" },
    {
      id: "each",
      tool: "search_v1",
      depends_on: ["list"],
      args: { q: "{item}" },
      store_as: "found_{index}",
      for_each: { source: "{artifacts.listed}", select: "items[]" },
    },
    {
      id: "pick",
      type: "delegate",
      depends_on: ["list"],
      instruction: "Pick a search for {artifacts.listed}",
      tools: ["search_v1"],
      min_confidence: 0.6,
      store_as: "picked",
    },
  ],
};
const [, each, pick] = deltaPlan.nodes as [unknown, Record<string, unknown>, Record<string, unknown>];

const deltaContext: DeltaContext = {
  plan: deltaPlan,
  eligible: ["each", "pick"],
  allowedTools,
  host,
  nodeTypes,
};

function codes(delta: unknown): string[] {
  const checked = checkRepairDelta(delta, deltaContext);
  return checked.ok ? [] : checked.issues.map((i) => i.code);
}

describe("checkRepairDelta", () => {
  it("accepts the changes a repair may make, and lists them field by field", () => {
    const checked = checkRepairDelta(
      {
        nodes: [
          { ...each, tool: "search_v2", retry: { max_attempts: 3 }, description: "the new search" },
          { ...pick, instruction: "Choose one search", tools: ["search_v2", "lookup"], min_confidence: 0.8 },
        ],
      },
      deltaContext,
    );
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.changes.map((c) => `${c.nodeId}.${c.field}`)).toEqual([
      "each.tool",
      "each.retry",
      "each.description",
      "pick.instruction",
      "pick.tools",
      "pick.min_confidence",
    ]);
    expect((checked.plan.nodes as unknown[])[0]).toBe(deltaPlan.nodes[0]); // untouched nodes stay as they were
    expect(renderRepairDiff(checked.changes)).toContain('    tool: "search_v1" → "search_v2"\n');
  });

  it("treats a left-out default as the default: an empty depends_on, allow_side_effects false", () => {
    const list = { id: "list", tool: "lookup", args: { q: "x" }, store_as: "listed" };
    const checked = checkRepairDelta(
      {
        nodes: [
          { ...list, depends_on: [] },
          { ...pick, allow_side_effects: false },
        ],
      },
      { ...deltaContext, eligible: ["list", "pick"] },
    );
    expect(checked.ok).toBe(true);
  });

  it("gives every protected change its own code", () => {
    const cases: [unknown, string][] = [
      [{ nodes: [{ ...each, store_as: "x_{index}" }] }, "changed_store_as"],
      [{ nodes: [{ ...each, depends_on: [] }] }, "changed_depends_on"],
      [
        { nodes: [{ ...each, for_each: { ...(each.for_each as object), source: "{artifacts.other}" } }] },
        "changed_for_each",
      ],
      [
        { nodes: [{ ...each, for_each: { ...(each.for_each as object), select: "rows[]" } }] },
        "changed_for_each",
      ],
      [
        { nodes: [{ ...each, for_each: { ...(each.for_each as object), skip_existing: false } }] },
        "changed_for_each",
      ],
      [{ nodes: [{ ...each, for_each: undefined }] }, "changed_for_each"],
      [{ nodes: [{ ...each, for_each: { ...(each.for_each as object), max_items: 5 } }] }, "protected_field"],
      [{ nodes: [{ ...each, tool: "wipe" }] }, "tool_not_allowed"],
      [{ nodes: [{ ...pick, tools: ["search_v1", "wipe"] }] }, "tool_not_allowed"],
      [{ nodes: [{ ...pick, min_confidence: 0.2 }] }, "lowered_min_confidence"],
      [{ nodes: [{ ...pick, min_confidence: undefined }] }, "lowered_min_confidence"],
      [{ nodes: [{ ...pick, allow_side_effects: true }] }, "allow_side_effects"],
      [{ nodes: [{ ...pick, on_reject: "escalate" }] }, "protected_field"],
      [{ nodes: [{ ...pick, accept_when: "true" }] }, "protected_field"],
      [{ nodes: [{ ...pick, retry: { max_attempts: 2 } }] }, "protected_field"],
      [{ nodes: [{ ...each, type: "delegate" }] }, "changed_type"],
      [
        { nodes: [{ id: "list", tool: "search_v2", args: { q: "all" }, store_as: "listed" }] },
        "not_eligible",
      ],
      [{ nodes: [{ id: "new", tool: "lookup", args: { q: "x" }, store_as: "n" }] }, "added_node"],
      [{ nodes: [{ id: "each", removed: true }] }, "removed_node"],
      [{ nodes: [each], remove: ["pick"] }, "removed_node"],
      [{ nodes: [each, each] }, "duplicate_node"],
      [{ nodes: [] }, "empty_delta"],
      [{ nodes: [{ tool: "lookup" }] }, "invalid_delta"],
      [{ nodes: "all of them" }, "invalid_delta"],
      [[each], "invalid_delta"],
      [{ nodes: [each], run_shell: "rm -rf /" }, "invalid_delta"],
      [null, "invalid_delta"],
    ];
    for (const [delta, code] of cases) expect(codes(delta), code).toContain(code);
  });

  it("validates the patched plan as a whole", () => {
    expect(codes({ nodes: [{ ...each, args: { q: "{artifacts.nowhere}" } }] }).length).toBeGreaterThan(0);
    expect(codes({ nodes: [{ ...each, args: { q: "x", extra: 1 } }] })).toContain("unknown_arg");
    expect(codes({ nodes: [{ ...each, when: "this is not CEL (((" }] }).length).toBeGreaterThan(0);
  });

  it("shows a model's control characters as escapes in the diff, never as they are", () => {
    const checked = checkRepairDelta(
      { nodes: [{ ...each, description: "\u001b[2J\u009b31m\u202eevil" }] },
      deltaContext,
    );
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    const text = renderRepairDiff(checked.changes);
    // eslint-disable-next-line no-control-regex -- the point of the test
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain("\\u001b[2J\\u009b31m\\u202eevil");
  });
});
