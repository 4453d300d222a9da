import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { createHost } from "../compose/index.js";
import { defineTool } from "../tools/define-tool.js";
import { checkRepairDelta, type DeltaContext } from "./repair-delta.js";

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

const deltaContext: DeltaContext = {
  plan: deltaPlan,
  eligible: ["each", "pick"],
  allowedTools,
  host,
  nodeTypes,
};

const [list, each, pick] = deltaPlan.nodes as Record<string, unknown>[] as [
  Record<string, unknown>,
  Record<string, unknown>,
  Record<string, unknown>,
];
const fieldNames = fc.constantFrom(
  "id",
  "type",
  "tool",
  "args",
  "store_as",
  "depends_on",
  "when",
  "for_each",
  "retry",
  "timeout",
  "description",
  "instruction",
  "facts",
  "tools",
  "min_confidence",
  "allow_side_effects",
  "on_reject",
  "remove",
  "__proto__",
  "constructor",
);
const values = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom("each", "pick", "list", "search_v2", "wipe", "{artifacts.listed}", "found_{index}"),
);
/** Node-like objects: real ids and fields with arbitrary values, and arbitrary keys. */
const nodeLike = fc.oneof(
  fc.dictionary(fc.oneof(fieldNames, fc.string()), values, { maxKeys: 8 }),
  fc
    .record({ id: fc.constantFrom("each", "pick", "list", "x") })
    .chain((base) =>
      fc.dictionary(fieldNames, values, { maxKeys: 5 }).map((extra) => ({ ...extra, ...base })),
    ),
  values,
);
/** Replacements that change only what a repair may change (some pass, some fail validation). */
const allowedChange = fc
  .record(
    {
      tool: fc.constantFrom("search_v1", "search_v2", "lookup"),
      description: fc.string(),
      retry: fc.record({ max_attempts: fc.integer({ min: 0, max: 12 }) }),
    },
    { requiredKeys: [] },
  )
  .map((patch) => ({ nodes: [{ ...each, ...patch }] }));
const deltaLike = fc.oneof(
  allowedChange,
  fc.jsonValue(),
  fc.record({ nodes: fc.array(nodeLike, { maxLength: 4 }) }),
  fc.record({ nodes: fc.array(nodeLike, { maxLength: 3 }), extra: values }),
);

/** One forbidden change to a valid replacement, and the code that must refuse it. */
const forbidden: fc.Arbitrary<{ delta: unknown; why: string }> = fc.oneof(
  fc
    .string()
    .filter((s) => s !== each.store_as)
    .map((store_as) => ({
      delta: { nodes: [{ ...each, store_as }] },
      why: "store_as",
    })),
  fc
    .array(fc.constantFrom("list", "pick", "each"), { maxLength: 3 })
    .filter((d) => JSON.stringify(d) !== JSON.stringify(each.depends_on))
    .map((depends_on) => ({ delta: { nodes: [{ ...each, depends_on }] }, why: "depends_on" })),
  fc
    .oneof(
      fc
        .string()
        .filter((v) => v !== "{artifacts.listed}")
        .map((source) => ({ source })),
      fc
        .string()
        .filter((v) => v !== "items[]")
        .map((select) => ({ select })),
      fc.constant({ skip_existing: false }),
    )
    .map((f) => ({
      delta: { nodes: [{ ...each, for_each: { ...(each.for_each as object), ...f } }] },
      why: "for_each",
    })),
  fc.double({ min: 0, max: 0.6, noNaN: true, maxExcluded: true }).map((min_confidence) => ({
    delta: { nodes: [{ ...pick, min_confidence }] },
    why: "min_confidence",
  })),
  fc.constant({ delta: { nodes: [{ ...pick, allow_side_effects: true }] }, why: "allow_side_effects" }),
  fc.constantFrom("wipe", "rm", "search_v3").map((tool) => ({
    delta: { nodes: [{ ...each, tool }] },
    why: "tool",
  })),
  fc
    .string({ minLength: 1 })
    .filter((id) => !["each", "pick", "list"].includes(id))
    .map((id) => ({
      delta: { nodes: [{ ...each, id }] },
      why: "added",
    })),
  fc.constant({ delta: { nodes: [{ ...list, tool: "search_v2" }] }, why: "not eligible" }),
);

describe("checkRepairDelta on untrusted deltas", () => {
  it("never throws, whatever the delta, and a delta it passes changes only eligible nodes", () => {
    let passed = 0;
    fc.assert(
      fc.property(deltaLike, (delta) => {
        const checked = checkRepairDelta(delta, deltaContext);
        if (!checked.ok) {
          expect(checked.issues.length).toBeGreaterThan(0);
          return;
        }
        passed++;
        for (const change of checked.changes) expect(["each", "pick"]).toContain(change.nodeId);
        const nodes = checked.plan.nodes as Record<string, unknown>[];
        expect(nodes.map((n) => n.id)).toEqual(["list", "each", "pick"]);
        expect(nodes[0]).toBe(list);
      }),
      { numRuns: 400 },
    );
    expect(passed).toBeGreaterThan(0); // the generator reaches valid deltas too
  });

  it("passes no delta with a forbidden change, whatever else it holds", () => {
    fc.assert(
      fc.property(
        forbidden,
        fc.constantFrom(undefined, { ...pick, instruction: "Choose again" }),
        ({ delta }, other) => {
          const nodes = [...(delta as { nodes: unknown[] }).nodes, ...(other ? [other] : [])];
          expect(checkRepairDelta({ nodes }, deltaContext).ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
