import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineTool } from "../tools/define-tool.js";
import { authorPlan } from "./author-plan.js";
import { scriptedModel } from "./scripted-model.js";

const tools = [
  defineTool({
    name: "lookup",
    description: "Look a key up",
    input: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    delegateSafe: true,
    run: ({ key }: { key: string }) => key,
  }),
];

/** Answers that look more or less like plans: random nodes with real and made-up fields. */
const planLike = fc.record(
  {
    name: fc.oneof(fc.string(), fc.constant("p")),
    objective: fc.string(),
    nodes: fc.array(
      fc.dictionary(
        fc.oneof(
          fc.constantFrom(
            "id",
            "tool",
            "type",
            "args",
            "store_as",
            "depends_on",
            "when",
            "for_each",
            "retry",
          ),
          fc.string(),
        ),
        fc.oneof(fc.string(), fc.jsonValue(), fc.constantFrom("lookup", "{artifacts.a}", "a", "delegate")),
      ),
      { maxLength: 4 },
    ),
    metadata: fc.jsonValue(),
    inputs: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

const answer = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  planLike.map((v) => JSON.stringify(v)),
  fc.string().map((s) => "```json\n" + s + "\n```"),
);

describe("authorPlan on arbitrary model answers", () => {
  it("never throws: it returns a plan or the issues, whatever the model answers", async () => {
    await fc.assert(
      fc.asyncProperty(answer, answer, async (first, second) => {
        const model = await scriptedModel([first, second]);
        const result = await authorPlan({ objective: "Look up a key", tools, model });
        if (result.ok) expect(typeof result.plan).toBe("object");
        else expect(result.issues.length).toBeGreaterThan(0);
        expect(result.usage.calls).toBe(model.doGenerateCalls.length);
        expect(result.usage.calls).toBe(result.ok ? result.usage.calls : 2); // an invalid answer is always corrected once
      }),
      { numRuns: 150 },
    );
  });
});
