import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chooseThreshold, recommendThreshold, thresholdTable } from "./threshold.js";

describe("thresholds", () => {
  const outcomes = [
    { score: 0.99, correct: true },
    { score: 0.95, correct: true },
    { score: 0.9, correct: true },
    { score: 0.8, correct: false },
    { score: 0.7, correct: true },
    { score: 0.3, correct: false },
  ];

  it("reports coverage and precision per threshold", () => {
    expect(thresholdTable(outcomes, [0.9, 0.75, 0.999])).toEqual([
      { threshold: 0.9, coverage: 0.5, precision: 1 },
      { threshold: 0.75, coverage: 4 / 6, precision: 0.75 },
      { threshold: 0.999, coverage: 0, precision: null },
    ]);
  });

  it("recommends the smallest threshold that reaches the target precision, or 1 when none does", () => {
    expect(recommendThreshold(outcomes, 0.98)).toBe(0.9);
    expect(recommendThreshold(outcomes, 0.75)).toBe(0.7);
    expect(recommendThreshold([{ score: 0.9, correct: false }], 0.5)).toBe(1);
    expect(chooseThreshold(outcomes, 0.75)).toEqual({
      threshold: 0.7,
      coverage: 5 / 6,
      precision: 0.8,
      accepted: 5,
    });
    expect(chooseThreshold([{ score: 0.9, correct: false }], 0.5)).toBeUndefined();
  });

  it("never recommends a threshold below the floor, and still 1 when nothing reaches the target", () => {
    expect(recommendThreshold(outcomes, 0.75, 0.8)).toBe(0.8);
    expect(recommendThreshold(outcomes, 0.98, 0.8)).toBe(0.9);
    expect(recommendThreshold([{ score: 0.9, correct: false }], 0.5, 0.8)).toBe(1);
  });

  describe("the rounding rule: down to three decimals only when that accepts the same outcomes", () => {
    it("rounds down when no score lies between the rounded and the chosen threshold", () => {
      const os = [
        { score: 0.123456, correct: true },
        { score: 0.05, correct: false },
      ];
      expect(chooseThreshold(os, 0.9)?.threshold).toBe(0.123);
    });

    it("keeps the exact score when rounding would let in a wrong call (a plain floor would: 0.9995 → 0.999)", () => {
      const os = [
        ...Array.from({ length: 10 }, () => ({ score: 0.9995, correct: true })),
        { score: 0.9992, correct: false },
      ];
      const chosen = chooseThreshold(os, 0.95)!;
      expect(chosen.threshold).toBe(0.9995);
      expect(chosen.precision).toBe(1);
      expect(thresholdTable(os, [chosen.threshold])[0]!.precision).toBe(1);
      expect(thresholdTable(os, [0.999])[0]!.precision).toBeLessThan(0.95);
    });

    it("the chosen threshold accepts exactly the outcomes its coverage and precision describe", () => {
      const scored = fc.array(
        fc.record({
          score: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000),
          correct: fc.boolean(),
        }),
        { minLength: 1, maxLength: 40 },
      );
      fc.assert(
        fc.property(scored, fc.constantFrom(0.5, 0.8, 0.95), (os, target) => {
          const chosen = chooseThreshold(os, target);
          if (!chosen) return;
          const [at] = thresholdTable(os, [chosen.threshold]);
          expect(at!.coverage).toBe(chosen.coverage);
          expect(at!.precision).toBe(chosen.precision);
          expect(at!.precision).toBeGreaterThanOrEqual(target);
          // A seen score, or one rounded down to three decimals.
          const seen = (o: { score: number }) =>
            o.score === chosen.threshold || Math.floor(o.score * 1000) / 1000 === chosen.threshold;
          expect(os.some(seen)).toBe(true);
        }),
      );
    });
  });
});
