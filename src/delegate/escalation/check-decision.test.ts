import { describe, expect, it } from "vitest";
import { checkDecision } from "./check-decision.js";
import { BAD, message } from "./check-decision.fixture.js";

describe("checkDecision", () => {
  it("takes exactly one of call, value or skip", () => {
    expect(checkDecision({ skip: true })).toEqual({ kind: "skip" });
    expect(checkDecision({ value: null })).toEqual({ kind: "value", value: null });
    expect(checkDecision({ value: 0, skip: false })).toEqual({ kind: "value", value: 0 });
    expect(checkDecision({ call: { name: "t" } })).toEqual({
      kind: "call",
      call: { name: "t", arguments: {} },
    });
    for (const [fields, pattern] of BAD) expect(message(() => checkDecision(fields))).toMatch(pattern);
  });
});
