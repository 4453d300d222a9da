import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auroc, expectedCalibrationError, riskCoverage, wilsonInterval } from "./score-metrics.js";
import { chooseThreshold } from "./threshold.js";

const outcomes = fc.array(
  fc.record({ score: fc.integer({ min: 0, max: 100 }).map((n) => n / 100), correct: fc.boolean() }),
  {
    minLength: 1,
    maxLength: 60,
  },
);

describe("score metrics", () => {
  it("AUROC is 1 for a perfect ranking, 0 for a reversed one, 0.5 for ties", () => {
    const perfect = [0.1, 0.2, 0.8, 0.9].map((score, i) => ({ score, correct: i >= 2 }));
    expect(auroc(perfect)).toBe(1);
    expect(auroc(perfect.map((o) => ({ ...o, correct: !o.correct })))).toBe(0);
    expect(auroc(perfect.map((o) => ({ ...o, score: 0.5 })))).toBe(0.5);
    expect(auroc([{ score: 1, correct: true }])).toBeUndefined();
  });

  it("AUROC lies in [0, 1] and only depends on the order of the scores", () => {
    fc.assert(
      fc.property(outcomes, (os) => {
        const a = auroc(os);
        if (a === undefined) return;
        expect(a).toBeGreaterThanOrEqual(0);
        expect(a).toBeLessThanOrEqual(1);
        expect(auroc(os.map((o) => ({ ...o, score: o.score * 0.5 + 0.25 })))).toBeCloseTo(a, 12);
      }),
    );
  });

  it("ECE is 0 when each score equals the share correct, and in [0, 1] always", () => {
    const calibrated = [...Array(10)].map((_, i) => ({
      score: i < 5 ? 0.05 : 0.95,
      correct: i !== 0 && i !== 9,
    }));
    expect(expectedCalibrationError(calibrated.filter((o) => o.score > 0.5 || !o.correct))).toBeLessThan(0.2);
    expect(
      expectedCalibrationError([
        { score: 1, correct: true },
        { score: 0, correct: false },
      ]),
    ).toBe(0);
    fc.assert(
      fc.property(outcomes, (os) => {
        const e = expectedCalibrationError(os);
        expect(e).toBeGreaterThanOrEqual(0);
        expect(e).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("the risk–coverage curve ends at full coverage with the accuracy; coverage only grows", () => {
    fc.assert(
      fc.property(outcomes, (os) => {
        const curve = riskCoverage(os);
        const last = curve.at(-1)!;
        expect(last.coverage).toBe(1);
        expect(last.precision).toBeCloseTo(os.filter((o) => o.correct).length / os.length, 12);
        for (let i = 1; i < curve.length; i++)
          expect(curve[i]!.coverage).toBeGreaterThan(curve[i - 1]!.coverage);
        const best = chooseThreshold(os, 0.95);
        if (best) expect(best.precision).toBeGreaterThanOrEqual(0.95);
      }),
    );
  });

  it("the Wilson interval holds the observed share, stays in [0, 1] and narrows with more trials", () => {
    // A textbook value: 95 % Wilson interval for 12 of 13 is about [0.667, 0.986].
    const [lo, hi] = wilsonInterval(12, 13);
    expect(lo).toBeCloseTo(0.667, 2);
    expect(hi).toBeCloseTo(0.986, 2);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, share) => {
          const k = Math.round(share * n);
          const [a, b] = wilsonInterval(k, n);
          const [a4, b4] = wilsonInterval(4 * k, 4 * n);
          expect(a).toBeGreaterThanOrEqual(0);
          expect(b).toBeLessThanOrEqual(1);
          expect(a).toBeLessThanOrEqual(k / n + 1e-12);
          expect(b).toBeGreaterThanOrEqual(k / n - 1e-12);
          expect(b4 - a4).toBeLessThan(b - a + 1e-12);
        },
      ),
    );
  });
});
