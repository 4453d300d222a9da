/**
 * No model-written plan calls a tool with side effects without a person's approval (issue 38, item 1): whatever
 * plan the model writes — tool nodes that call the side-effecting tool, delegate nodes that set
 * `allow_side_effects` or lower `min_confidence` on a host whose own side-effect key is ON — the toolkit's
 * `plan_execute`, and a `plan_resume` the calling model tries after it, never call it. Counted at the tool.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHost } from "../compose/index.js";
import { ScriptedDelegate, type ScriptedEntry } from "../delegate/scripted-delegate.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { planTools } from "./plan-tools.js";
import { scriptedModel } from "./scripted-model.js";

let posts = 0;
let reads = 0;
const tools = [
  defineTool({
    name: "list_repos",
    description: "Repositories",
    input: { type: "object", properties: {} },
    delegateSafe: true,
    run: () => (reads++, ["a"]),
  }),
  defineTool({
    name: "post_message",
    description: "Post to a channel",
    input: { type: "object", properties: { text: {} }, required: ["text"] },
    run: () => (posts++, "posted"),
  }),
];
const ctx = {
  signal: new AbortController().signal,
  idempotencyKey: "p",
  runId: "p",
  nodeId: "p",
  attempt: 1,
};

const toolNode = fc.record({
  tool: fc.constantFrom("list_repos", "post_message"),
  args: fc.constantFrom({}, { text: "hi" }, { text: "{artifacts.n0}" }),
});
const delegateNode = fc.record(
  {
    type: fc.constant("delegate"),
    instruction: fc.constant("Post the repos"),
    tools: fc.constantFrom(["post_message"], ["list_repos", "post_message"]),
    allow_side_effects: fc.boolean(),
    min_confidence: fc.constantFrom(0, 0.3, 0.8, 0.95),
    on_reject: fc.constantFrom("fail", "retry_backend"),
  },
  { requiredKeys: ["type", "instruction", "tools"] },
);
const plans = fc.array(fc.oneof(toolNode, delegateNode), { minLength: 1, maxLength: 4 }).map((nodes) => ({
  name: "generated",
  nodes: nodes.map((n, i) => ({ id: `n${i}`, store_as: `n${i}`, ...n })),
}));

describe("authored plans and side effects", () => {
  it("never call a tool with side effects before a person approves, whatever plan the model writes", async () => {
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        posts = 0;
        // Every delegate proposes the side effect, confidently; the host's half of the double key is on.
        const entries: ScriptedEntry[] = plan.nodes.flatMap((n) =>
          Array.from({ length: 4 }, () => ({
            node: n.id,
            proposal: { name: "post_message", arguments: { text: "hi" }, confidence: 0.99 },
          })),
        );
        const { host, nodeTypes } = createHost({
          tools,
          delegates: [new ScriptedDelegate({ entries })],
          allowDelegateSideEffects: true,
        });
        const store = new MemoryRunStore();
        const model = await scriptedModel([JSON.stringify(plan), JSON.stringify(plan)]);
        const toolkit = planTools({ tools, store, model, host, nodeTypes });
        const byName = Object.fromEntries(toolkit.tools.map((t) => [t.name, t]));
        const answer = (await byName.plan_execute!.run({ objective: "Post the repos" }, ctx)) as Record<
          string,
          unknown
        >;
        if (typeof answer.run_id === "string") await byName.plan_resume!.run({ run_id: answer.run_id }, ctx);
        await toolkit.settle();
        expect(posts).toBe(0);
        const forbidden = plan.nodes.some(
          (n) =>
            ("allow_side_effects" in n && n.allow_side_effects) ||
            ("min_confidence" in n && (n.min_confidence ?? 1) < 0.8),
        );
        const sideEffectNode = plan.nodes.some((n) => "tool" in n && n.tool === "post_message");
        if (forbidden) expect(answer.error).toBe("plan_invalid");
        else if (sideEffectNode && answer.error === undefined) expect(answer.pending_approval).toBe(true);
      }),
      // A plan of one read always runs, so `reads` below cannot stay 0 by chance of the generator: CI once drew 60
      // plans none of which could run, and the check failed on a correct toolkit.
      {
        numRuns: 60,
        examples: [
          [{ name: "generated", nodes: [{ id: "n0", store_as: "n0", tool: "list_repos", args: {} }] }],
        ],
      },
    );
    expect(reads).toBeGreaterThan(0); // some plans did run: the property is not true by refusing everything
  });
});
