import fc from "fast-check";
import type { Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { answerStructure, lookupDraft } from "./local-draft.js";

const t = (...ids: number[]) => ids as Token[];

describe("lookupDraft", () => {
  it("drafts what followed the answer's last tokens where they last occur", () => {
    // The previous answer's structure: `{"` `name` `":"` … `","` `arguments` `":{"`.
    const previous = t(1, 2, 3, -1, -1, 4, 5, 6);
    expect(lookupDraft([previous], t(1), 2)).toEqual(t(2, 3));
    // A value of the previous answer is a hole: the draft ends before it, and no match crosses it.
    expect(lookupDraft([previous], t(1, 2), 2)).toEqual(t(3));
    expect(lookupDraft([previous], t(1, 2, 3), 2)).toEqual([]);
    expect(lookupDraft([previous], t(9, 4), 2)).toEqual(t(5, 6));
  });

  it("keeps an answer's structure and makes its values holes", () => {
    expect(answerStructure(t(1, 2, 3, 9, 9, 4), [false, false, false, true, true, false])).toEqual(
      t(1, 2, 3, -1, -1, 4),
    );
  });

  it("prefers the longest match, and within a length the first source", () => {
    const prompt = t(7, 8, 20, 21, 8, 30, 31);
    // `8` alone is in the prompt twice, but one-token matches count only in the first source.
    expect(lookupDraft([[], prompt], t(8), 2)).toEqual([]);
    // Two tokens: the prompt's `7 8` is followed by 20 21.
    expect(lookupDraft([[], prompt], t(7, 8), 2)).toEqual(t(20, 21));
    // A longer match in the prompt beats a shorter one in the first source.
    expect(lookupDraft([t(8, 40), prompt], t(21, 8), 2)).toEqual(t(30, 31));
    // The same length in both: the first source's.
    expect(lookupDraft([t(21, 8, 40), prompt], t(21, 8), 2)).toEqual(t(40));
  });

  it("copies from the answer itself, never from its own last tokens", () => {
    const generated = t(5, 6, 7, 5, 6);
    expect(lookupDraft([[], [], generated], generated, 2)).toEqual(t(7, 5));
    const once = t(5, 6);
    expect(lookupDraft([[], [], once], once, 2)).toEqual([]);
  });

  it("returns at most `max` tokens that follow a real occurrence, and never a hole", () => {
    const token = fc.integer({ min: -1, max: 6 });
    fc.assert(
      fc.property(
        fc.array(fc.array(token, { maxLength: 30 }), { maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        (sources, generated, max) => {
          const draft = lookupDraft(sources as Token[][], generated as Token[], max);
          expect(draft.length).toBeLessThanOrEqual(max);
          expect(draft.every((x) => x >= 0)).toBe(true);
          if (draft.length === 0) return;
          // Some source holds a run of the answer's last tokens followed by the draft.
          const found = sources.some((s) => {
            for (let n = 1; n <= Math.min(4, generated.length); n++) {
              const run = [...generated.slice(-n), ...draft].join(",");
              for (let i = 0; i + n + draft.length <= s.length; i++) {
                if (s.slice(i, i + n + draft.length).join(",") === run) return true;
              }
            }
            return false;
          });
          expect(found).toBe(true);
        },
      ),
    );
  });
});
