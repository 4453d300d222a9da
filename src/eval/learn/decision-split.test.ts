/** The seeded split of a node's decisions: deterministic, disjoint, and a held-out decision stays held out. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitDecisions } from "./decision-split.js";

const decision = fc.record({
  instruction: fc.string({ maxLength: 40 }),
  facts: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
});

describe("splitDecisions", () => {
  it("is a seeded partition that more decisions do not change", () => {
    fc.assert(
      fc.property(
        fc.array(decision, { maxLength: 40 }),
        fc.array(decision, { maxLength: 20 }),
        fc.integer(),
        (first, more, seed) => {
          const a = splitDecisions(first, { seed, heldOutShare: 0.3 });
          expect(splitDecisions(first, { seed, heldOutShare: 0.3 })).toEqual(a);
          expect(a.train.length + a.heldOut.length).toBe(first.length);
          const heldOut = new Set(a.heldOut);
          expect(a.train.some((d) => heldOut.has(d))).toBe(false);
          const b = splitDecisions([...first, ...more], { seed, heldOutShare: 0.3 });
          const bHeldOut = new Set(b.heldOut);
          for (const d of a.heldOut) expect(bHeldOut.has(d)).toBe(true);
        },
      ),
    );
  });

  it("holds out about the share asked, and another seed holds out others", () => {
    const many = Array.from({ length: 2000 }, (_, i) => ({ instruction: `alert ${i}`, facts: {} }));
    const one = splitDecisions(many, { seed: 1, heldOutShare: 0.3 });
    expect(one.heldOut.length / many.length).toBeGreaterThan(0.27);
    expect(one.heldOut.length / many.length).toBeLessThan(0.33);
    const two = splitDecisions(many, { seed: 2, heldOutShare: 0.3 });
    expect(two.heldOut).not.toEqual(one.heldOut);
  });
});
