import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answerConfidence, answerConfidenceOfTokens, valueTokens } from "./answer-confidence.js";

describe("valueTokens", () => {
  it("marks the tool name and argument values, not keys, quotes, brackets or separators", () => {
    const pieces = [
      '{"',
      "name",
      '":"',
      "get",
      "_weather",
      '","',
      "arguments",
      '":{"',
      "city",
      '":"',
      "Paris",
    ];
    pieces.push('","', "days", '":', " 3", ',"', "tags", '":[', "true", ",", "-1.5", "]}}");
    expect(pieces.filter((_, i) => valueTokens(pieces)[i])).toEqual([
      "get",
      "_weather",
      "Paris",
      " 3",
      "true",
      "-1.5",
    ]);
  });

  it("marks a decline's null and escaped characters inside a value", () => {
    expect(valueTokens(['{"name":', " null", ',"arguments":{}}'])).toEqual([false, true, false]);
    expect(valueTokens(['{"name":"f","arguments":{"q":"a', '\\"', 'b"}}'])).toEqual([true, true, true]);
  });

  it("does not depend on where the tokens are cut, and never throws on any text", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record({ name: fc.string(), arguments: fc.dictionary(fc.string(), fc.jsonValue()) }),
          fc.string(),
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        (answer, cuts) => {
          const text = typeof answer === "string" ? answer : JSON.stringify(answer);
          const chars = valueTokens([...text].map(String));
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let last = 0;
          for (const c of [...at, text.length]) {
            pieces.push(text.slice(last, c));
            last = c;
          }
          const mask = valueTokens(pieces);
          expect(mask).toHaveLength(pieces.length);
          // A piece is a value token exactly when one of its characters is a value character.
          let pos = 0;
          for (let i = 0; i < pieces.length; i++) {
            const codeUnits = [...text.slice(0, pos + pieces[i]!.length)].length;
            const before = [...text.slice(0, pos)].length;
            expect(mask[i]).toBe(chars.slice(before, codeUnits).some(Boolean));
            pos += pieces[i]!.length;
          }
        },
      ),
    );
  });
});

describe("answerConfidence", () => {
  it("joins probabilities as a product and takes the weakest as the minimum", () => {
    expect(answerConfidence([0.9, 0.5, 1])).toBeCloseTo(0.45, 12);
    expect(answerConfidence([0.9, 0.5, 1], "min")).toBe(0.5);
    expect(answerConfidence([])).toBe(0);
    // float32 rounding above 1 is clamped
    expect(answerConfidence([1.0000001, 1])).toBe(1);
  });

  it("scores only the value tokens", () => {
    const pieces = ['{"name":"', "f", '","arguments":{"x":', "7", "}}"];
    expect(answerConfidenceOfTokens(pieces, [0.5, 0.9, 0.5, 0.8, 0.5])).toBeCloseTo(0.72, 12);
  });
});
