/** The promotion rule of `deputy learn`: it never promotes a challenger that is worse on the held-out decisions. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../confidence/score-metrics.js";
import { promotionVerdict, type HeldOutStanding } from "./promotion-rule.js";

const standing = (records: number) =>
  fc
    .nat({ max: records })
    .chain((decided) => fc.nat({ max: decided }).map((correct) => ({ decided, correct })))
    .map(({ decided, correct }): HeldOutStanding => ({
      records,
      decided,
      correct,
      wilsonLower: decided > 0 ? wilsonInterval(correct, decided)[0] : null,
    }));

describe("promotionVerdict", () => {
  it("promotes only a challenger with a bound at least the champion's, the target precision, and a larger share than a champion at the target", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 300 }).chain((n) => fc.tuple(standing(n), fc.option(standing(n)))),
        fc.double({ min: 0.5, max: 0.999, noNaN: true }),
        ([challenger, champion], target) => {
          const verdict = promotionVerdict(challenger, champion ?? undefined, target);
          expect(verdict.reason.length).toBeGreaterThan(0);
          if (!verdict.promote) return;
          expect(challenger.decided).toBeGreaterThan(0);
          expect(challenger.correct / challenger.decided).toBeGreaterThanOrEqual(target);
          if (champion) {
            if (champion.wilsonLower !== null)
              expect(challenger.wilsonLower!).toBeGreaterThanOrEqual(champion.wilsonLower);
            // a champion below the target precision decides no share the team can leave to it
            if (champion.decided > 0 && champion.correct / champion.decided >= target)
              expect(challenger.decided).toBeGreaterThan(champion.decided);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps the champion and says why", () => {
    const s = (decided: number, correct: number): HeldOutStanding => ({
      records: 100,
      decided,
      correct,
      wilsonLower: wilsonInterval(correct, decided)[0],
    });
    expect(promotionVerdict(s(60, 59), s(50, 50), 0.97)).toMatchObject({
      promote: false,
      reason: expect.stringContaining("Wilson lower bound"),
    });
    expect(promotionVerdict(s(50, 50), s(50, 50), 0.97)).toMatchObject({
      promote: false,
      reason: expect.stringContaining("not more than"),
    });
    expect(promotionVerdict(s(80, 70), undefined, 0.97)).toMatchObject({
      promote: false,
      reason: expect.stringContaining("below the target"),
    });
    expect(promotionVerdict(s(80, 80), s(50, 50), 0.97).promote).toBe(true);
    // a confidently wrong champion (more decided, below the target) does not block a more precise challenger…
    expect(promotionVerdict(s(87, 87), s(96, 85), 0.97)).toMatchObject({
      promote: true,
      reason: expect.stringContaining("below the target"),
    });
    // …unless its Wilson lower bound is higher
    expect(promotionVerdict(s(20, 20), s(96, 92), 0.97)).toMatchObject({
      promote: false,
      reason: expect.stringContaining("Wilson lower bound"),
    });
  });
});
