/**
 * A repair reads what a model may change from each node's type (issue 37, item 4): the rules are per type, not
 * per field name, so a rule of one type never applies to another's field, a type of one's own is repaired by its
 * own declaration, and a type that declares none (or says it is not repairable) keeps its nodes as they ran.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define-agent.js";
import { createHost } from "../compose/index.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { defineNodeType } from "../plan/node-type.js";
import { defineTool } from "../tools/define-tool.js";
import { checkRepairDelta } from "./repair-delta.js";
import { repairSystemPrompt } from "./repair-prompt.js";

const lookup = defineTool({
  name: "lookup",
  description: "Look a key up",
  input: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  delegateSafe: true,
  run: ({ q }: { q: string }) => q,
});
const pause = defineNodeType({
  name: "pause",
  fields: { seconds: z.number().min(0).max(5), note: z.string().optional() },
  executor: { execute: async () => ({ status: "ok", value: null }) },
  modelWrites: {
    free: ["seconds"],
    rules: { note: { rule: "never", code: "note_set", default: undefined } },
  },
});
const bare = defineNodeType({
  name: "bare",
  fields: { n: z.number() },
  executor: { execute: async () => ({ status: "ok", value: null }) },
});
const { host, nodeTypes } = createHost({
  tools: [lookup],
  delegates: [new ScriptedDelegate({ entries: [] })],
  agents: {
    helper: defineAgent({
      name: "Helper",
      backend: { provider: "mock" },
      actions: { say: () => "Say hi" },
    }),
  },
  nodeTypes: [pause, bare],
});
const plan = {
  name: "p",
  nodes: [
    { id: "t", tool: "lookup", args: { q: "a" }, store_as: "t" },
    { id: "w", type: "pause", seconds: 1, store_as: "w" },
    { id: "b", type: "bare", n: 1, store_as: "b" },
    { id: "g", type: "agent", agent: "helper", store_as: "g" },
  ],
};
const check = (nodes: Record<string, unknown>[]) =>
  checkRepairDelta(
    { nodes },
    { plan, eligible: ["t", "w", "b", "g"], allowedTools: ["lookup"], host, nodeTypes },
  );
const codes = (nodes: Record<string, unknown>[]) => {
  const checked = check(nodes);
  return checked.ok ? [] : checked.issues.map((i) => i.code);
};

describe("a repair under its node types' rules", () => {
  it("applies a rule to its own type's field only: a tool node carrying a delegate's field is protected", () => {
    expect(codes([{ ...plan.nodes[0], min_confidence: 0.1 }])).toEqual(["protected_field"]);
  });

  it("repairs a type of one's own by its declaration, and refuses what it rules out", () => {
    const ok = check([{ ...plan.nodes[1], seconds: 3 }]);
    expect(ok.ok && ok.changes).toEqual([{ nodeId: "w", field: "seconds", before: 1, after: 3 }]);
    expect(codes([{ ...plan.nodes[1], note: "x" }])).toEqual(["note_set"]);
    expect(repairSystemPrompt([], plan, nodeTypes)).toContain(
      "- On a pause node you may change `seconds`; never set `note`.",
    );
  });

  it("keeps as they ran the nodes of a type that declares nothing, and the agent's", () => {
    expect(codes([{ ...plan.nodes[2], n: 2 }])).toEqual(["not_eligible"]);
    expect(codes([{ ...plan.nodes[3], agent: "other" }])).toEqual(["not_eligible"]);
    expect(repairSystemPrompt([], plan, nodeTypes)).not.toMatch(/On an? (bare|agent) node/);
  });
});
