/**
 * A calling model's arguments are untrusted: whatever it sends to any plan tool, the tool answers with data (a
 * refusal or a result) and never throws into the tool loop, and a tool that refuses starts nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { planTools } from "./plan-tools.js";
import { PLAN_TOOL_REFUSALS } from "./plan-tools-answers.js";
import { scriptedModel } from "./scripted-model.js";

let ran = 0;
const echo = defineTool({
  name: "echo",
  description: "Say something",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ({ text }: { text: string }) => (ran++, text),
});
const greet = {
  name: "greet",
  inputs: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
  nodes: [{ id: "say", tool: "echo", args: { text: "hello {inputs.who}" }, store_as: "said" }],
};
const ctx = {
  signal: new AbortController().signal,
  idempotencyKey: "p",
  runId: "p",
  nodeId: "p",
  attempt: 1,
};

/** Arguments more or less like the tools' own: their keys with any JSON value, and other keys. */
const args = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(
    fc.oneof(
      fc.constantFrom("objective", "name", "plan", "inputs", "run_id", "keys", "__proto__"),
      fc.string(),
    ),
    fc.oneof(fc.jsonValue(), fc.constantFrom("greet", "nope", "")),
    { maxKeys: 4 },
  ),
);

describe("plan tools on arbitrary arguments", () => {
  it("answer with data, never throw, and refuse with a known code", async () => {
    const store = new MemoryRunStore();
    // Answers the model gives, used up as it is asked: not JSON, a plan naming another tool, nothing left.
    const model = await scriptedModel(
      Array.from({ length: 400 }, (_, i) => (i % 2 ? "not json" : '{"nodes":[]}')),
    );
    const toolkit = planTools({ tools: [echo], store, model, plans: { greet } });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...toolkit.tools), args, async (tool, input) => {
        const before = ran;
        const answer = (await tool.run(input, ctx)) as Record<string, unknown>;
        expect(typeof answer).toBe("object");
        expect(answer).not.toBeNull();
        if ("error" in answer) {
          expect(PLAN_TOOL_REFUSALS).toContain(answer.error);
          expect(typeof answer.message).toBe("string");
          expect(ran).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    await toolkit.settle();
  });
});
