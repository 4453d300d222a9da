import { describe, expect, it } from "vitest";
import { loadBfclWithAnswers } from "../../test/bfcl-fixtures.js";
import { bfclGroundTruthCall, bfclToToolSpec, type BfclAnswer } from "./bfcl.js";
import { bfclAstMatch } from "./bfcl-ast-match.js";

const answer: BfclAnswer = {
  id: "x",
  ground_truth: [
    { "geo.distance": { city: ["New York", "NYC"], miles: [2.0], unit: ["km", ""], tags: [["a", "b"]] } },
  ],
};
const params = {
  type: "object",
  properties: {
    city: { type: "string" },
    miles: { type: "number" },
    unit: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["city", "miles"],
};
const call = (args: Record<string, unknown>, name = "geo.distance") =>
  bfclAstMatch({ name, arguments: args }, answer, params);

describe("bfclAstMatch (BFCL's AST rules)", () => {
  it("accepts every fixture's own ground truth", () => {
    const cases = loadBfclWithAnswers();
    expect(cases.length).toBeGreaterThan(100);
    for (const { sample, answer: a } of cases) {
      const tools = sample.function.map(bfclToToolSpec);
      // bfclGroundTruthCall leaves an object value encoded (key → allowed values) when the schema declares no
      // properties for it; such answers cannot be replayed as calls, so they are not a test of the matcher.
      if (JSON.stringify(a.ground_truth).includes('":[{"')) continue;
      const truth = bfclGroundTruthCall(a, tools);
      const result = bfclAstMatch(truth, a, tools.find((t) => t.name === truth.name)?.parameters);
      expect(result, sample.id).toEqual({ ok: true });
    }
  });

  it("normalises strings, takes an int for a float, and allows leaving optional parameters out", () => {
    expect(call({ city: "new-york", miles: 2, tags: ["a", "b"] }).ok).toBe(true);
    expect(call({ city: "N.Y.C.", miles: 2.0, unit: "KM", tags: ["A", "b"] }).ok).toBe(true);
  });

  it('takes "" given for an optional string parameter, as BFCL\'s string check does, but not for a number', () => {
    // BFCL v4 simple_python_280: `make` is optional (`[""]`) and the model wrote `"make": ""`.
    expect(call({ city: "NYC", miles: 2, unit: "", tags: ["a", "b"] })).toEqual({ ok: true });
    const optionalMiles: BfclAnswer = {
      id: "y",
      ground_truth: [{ "geo.distance": { city: ["NYC"], miles: [2.0, ""] } }],
    };
    expect(
      bfclAstMatch({ name: "geo.distance", arguments: { city: "NYC", miles: "" } }, optionalMiles, params).ok,
    ).toBe(false);
  });

  it("rejects a wrong name, a wrong value, a missing required or listed parameter, and unknown keys", () => {
    expect(call({ city: "NYC", miles: 2, tags: ["a", "b"] }, "geo.other").error).toMatch(
      /wrong function name/,
    );
    expect(call({ city: "Boston", miles: 2, tags: ["a", "b"] }).error).toMatch(/invalid value for city/);
    expect(call({ city: "NYC", tags: ["a", "b"] }).error).toMatch(/missing required parameter: miles/);
    expect(call({ city: "NYC", miles: 2 }).error).toMatch(/optional parameter not provided: tags/);
    expect(call({ city: "NYC", miles: 2, tags: ["b", "a"] }).error).toMatch(/invalid value for tags/);
    expect(call({ city: "NYC", miles: 2, tags: ["a", "b"], extra: 1 }).error).toMatch(
      /unexpected parameter: extra/,
    );
  });
});
