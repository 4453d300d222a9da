import { describe, expect, it } from "vitest";
import { z } from "zod";
import { unknownFieldHint } from "./unknown-field-hint.js";

const node = z.strictObject({
  id: z.string(),
  depends_on: z.array(z.string()).default([]),
  for_each: z.strictObject({ source: z.string(), max_items: z.number().optional() }).optional(),
});
const plan = z.strictObject({
  name: z.string(),
  nodes: z.array(z.union([node, z.strictObject({ agent: z.string() })])),
});

/** The hint for the first unknown-keys issue zod reports for `input`. */
function hintFor(input: unknown): string {
  const result = plan.safeParse(input);
  const issue = result.error?.issues.find((i) => i.code === "unrecognized_keys");
  return issue ? unknownFieldHint(plan, issue.path, issue.keys) : "no issue";
}

describe("unknownFieldHint", () => {
  it("names the declared field an unknown one is a typo of, where zod found it", () => {
    expect(unknownFieldHint(node, [], ["depend_on"])).toBe(' (did you mean "depends_on"?)');
    expect(unknownFieldHint(plan, ["nodes", 0, "for_each"], ["max_item"])).toBe(
      ' (did you mean "max_items"?)',
    );
    expect(unknownFieldHint(plan, [], ["nodez"])).toBe(' (did you mean "nodes"?)');
  });

  it("says nothing for a field that resembles none, or a path the schema does not have", () => {
    expect(unknownFieldHint(node, [], ["colour"])).toBe("");
    expect(unknownFieldHint(plan, ["nodes", "x"], ["depend_on"])).toBe("");
    expect(unknownFieldHint(z.string(), [], ["depend_on"])).toBe("");
  });

  it("agrees with the paths zod's own issues carry", () => {
    expect(hintFor({ name: "p", nodes: [{ id: "a", depend_on: [] }] })).toContain('"depends_on"');
  });
});
