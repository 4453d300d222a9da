import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseProposal } from "./parse-proposal.js";
import { atChoice, declineChoice, declinedAnswer, pastChoice } from "./decline-choice.js";

// A toy vocabulary: token id → text, as a model's tokenizer would give it.
const PIECES: Record<number, string> = {
  1: '{"',
  2: "name",
  3: '":',
  4: '":"',
  5: "null",
  6: " null",
  7: '"',
  8: " ",
  9: '"get',
};
const pieceOf = (t: number) => PIECES[t] ?? "?";
const all = () => true;

describe("declineChoice", () => {
  it("is the decline's share among the tokens that choose, at the choice point", () => {
    const choice = declineChoice(
      '{"name":',
      [
        [5, 0.1],
        [6, 0.1],
        [7, 0.5],
        [9, 0.3],
        [8, 0.2],
      ],
      pieceOf,
      all,
    );
    // null + " null" = 0.2 against '"' + '"get' = 0.8; the space (8) has not chosen yet and counts for neither.
    expect(choice?.probability).toBeCloseTo(0.2, 10);
    expect([5, 6]).toContain(choice?.declineToken);
  });

  it("counts a token that writes the colon and the choice at once, and only tokens the grammar allows", () => {
    const choice = declineChoice(
      '{"name',
      [
        [4, 0.6],
        [3, 0.3],
      ],
      pieceOf,
      all,
    );
    expect(choice).toEqual({ probability: 0, declineToken: undefined });
    const refused = declineChoice(
      '{"name":',
      [
        [5, 0.9],
        [7, 0.1],
      ],
      pieceOf,
      (t) => t !== 5,
    );
    expect(refused).toEqual({ probability: 0, declineToken: undefined });
  });

  it("says nothing once the answer has chosen, or when no candidate chooses", () => {
    expect(declineChoice('{"name":"get', [[5, 1]], pieceOf, all)).toBeUndefined();
    expect(declineChoice('{"name": null', [[7, 1]], pieceOf, all)).toBeUndefined();
    expect(declineChoice('{"', [[2, 1]], pieceOf, all)).toBeUndefined();
  });
});

describe("atChoice / pastChoice", () => {
  it("tell the answer's place relative to the choice", () => {
    expect(atChoice('{"name":')).toBe(true);
    expect(atChoice(' { "name" : ')).toBe(true);
    expect(atChoice('{"name"')).toBe(false);
    expect(pastChoice("")).toBe(false);
    expect(pastChoice('{"na')).toBe(false);
    expect(pastChoice('{"name":"')).toBe(true);
    expect(pastChoice('{"name":nu')).toBe(true);
    expect(pastChoice('{"arguments"')).toBe(true);
  });
});

describe("declinedAnswer", () => {
  it("closes an answer once its null is written, whatever the token after it began", () => {
    expect(declinedAnswer('{"name":null')).toBe('{"name":null}');
    expect(declinedAnswer('{ "name" : null,"')).toBe('{ "name" : null}');
    expect(declinedAnswer('{"name":nul')).toBeUndefined();
    expect(declinedAnswer('{"name":"null')).toBeUndefined();
    expect(declinedAnswer('{"name":"get')).toBeUndefined();
    expect(declinedAnswer('{"')).toBeUndefined();
  });

  it("gives a decline for every spacing of a written null, and nothing before the null is whole", () => {
    const space = fc.constantFrom("", " ", "\n", "  ", "\t");
    fc.assert(
      fc.property(space, space, space, space, fc.string({ maxLength: 12 }), (a, b, c, d, after) => {
        const declined = `${a}{${b}"name"${c}:${d}null`;
        const answer = declinedAnswer(declined + after);
        expect(parseProposal("local", answer!)).toEqual({ name: null, arguments: {} });
        for (let n = 0; n < declined.length; n++)
          expect(declinedAnswer(declined.slice(0, n))).toBeUndefined();
      }),
    );
  });
});
