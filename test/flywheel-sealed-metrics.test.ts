/**
 * The measures bench/flywheel-sealed.ts reports on the sealed sets, on hand-made records (no model): the share an
 * after-the-fact threshold decides, the most any ranking could decide, and which part a missed target names.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  exactCeiling,
  gateRow,
  judgeChainTarget,
  judgeTarget,
  oracleShare,
  type ScoredCase,
} from "../bench/flywheel-sealed-metrics.js";

const call = (confidence: number, exact: boolean, decided = false): ScoredCase => ({
  eligible: true,
  confidence,
  exact,
  decided,
});

describe("flywheel-sealed metrics", () => {
  it("an after-the-fact threshold stops above the first wrong call that breaks the precision", () => {
    // 0.9–0.6 right, 0.55 wrong, then two more right: 6 of 7 (85.7 %) at 0.4 is below 97 %.
    const cases = [0.9, 0.8, 0.7, 0.6].map((c) => call(c, true));
    cases.push(call(0.55, false), call(0.5, true), call(0.4, true), call(0.3, false));
    expect(oracleShare(cases, 0.97)).toEqual({ share: 4 / 8, threshold: 0.6 });
    // A record the gate could not take (declined, invalid) counts in the share's denominator, never as decided.
    const withDecline = [...cases, { eligible: false, confidence: 0.99, exact: false, decided: false }];
    expect(oracleShare(withDecline, 0.97)).toEqual({ share: 4 / 9, threshold: 0.6 });
    expect(oracleShare([call(0.9, false)], 0.97)).toEqual({ share: 0, threshold: null });
  });

  it("ties move together: a right and a wrong call at the same confidence are taken or left as one", () => {
    const cases = [call(0.9, true), call(0.8, true), call(0.8, false)];
    expect(oracleShare(cases, 0.97).share).toBe(1 / 3);
  });

  it("no threshold decides more than the most any ranking could (every exact call and the wrong share allowed)", () => {
    const arb = fc.array(
      fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), exact: fc.boolean() }),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(arb, fc.constantFrom(0.9, 0.95, 0.97), (rows, target) => {
        const cases = rows.map((r) => call(r.confidence, r.exact));
        const oracle = oracleShare(cases, target);
        expect(oracle.share).toBeLessThanOrEqual(exactCeiling(cases, target) + 1e-12);
        // The oracle's share is one a real threshold reaches: accepted at ≥ it, precision ≥ target.
        if (oracle.threshold !== null) {
          const row = gateRow(cases, (c) => c.confidence >= oracle.threshold!);
          expect(row.share).toBe(oracle.share);
          expect(row.precision).toBeGreaterThanOrEqual(target);
        }
        // And no other threshold seen does better at the target.
        for (const t of new Set(cases.map((c) => c.confidence))) {
          const row = gateRow(cases, (c) => c.confidence >= t);
          if (row.precision !== null && row.precision >= target)
            expect(row.share).toBeLessThanOrEqual(oracle.share);
        }
      }),
    );
  });

  it("a gate row counts the decided calls, their precision and its Wilson interval", () => {
    const cases = [call(0.9, true, true), call(0.85, false, true), call(0.5, true)];
    const row = gateRow(cases, (c) => c.decided);
    expect(row).toMatchObject({ records: 3, decided: 2, correct: 1, share: 2 / 3, precision: 0.5 });
    expect(row.wilson![0]).toBeLessThan(0.5);
    expect(row.wilson![1]).toBeGreaterThan(0.5);
    expect(gateRow(cases, () => false)).toMatchObject({ decided: 0, precision: null, wilson: null });
  });

  it("a missed target names the calls, the confidence's ranking or the threshold, in that order", () => {
    const target = { share: 0.5, precision: 0.97 };
    // Only 2 of 10 exact: no ranking reaches half.
    const fewRight = [call(0.9, true), call(0.8, true), ...Array.from({ length: 8 }, () => call(0.7, false))];
    expect(
      judgeTarget(
        gateRow(fewRight, () => false),
        fewRight,
        target,
        "min_confidence 0.8",
      ).shortOf,
    ).toBe("calls");
    // 8 of 10 exact, but the two wrong ones score highest: no threshold reaches 97 % on half.
    const badRanking = [
      call(0.99, false),
      call(0.98, false),
      ...Array.from({ length: 8 }, () => call(0.5, true)),
    ];
    expect(
      judgeTarget(
        gateRow(badRanking, () => false),
        badRanking,
        target,
        "min_confidence 0.8",
      ).shortOf,
    ).toBe("confidence");
    // Well ranked, but the chosen threshold (0.95) decides too little.
    const ranked = [
      ...Array.from({ length: 8 }, (_, i) => call(0.9 - i * 0.01, true)),
      call(0.2, false),
      call(0.1, false),
    ];
    const high = judgeTarget(
      gateRow(ranked, (c) => c.confidence >= 0.95),
      ranked,
      target,
      "min_confidence 0.95",
    );
    expect(high).toMatchObject({ met: false, shortOf: "threshold" });
    expect(high.line).toMatch(/^not met: 0\.0 % decided.*min_confidence 0\.95\): confidence ≥ 0\.830/);
    const met = judgeTarget(
      gateRow(ranked, (c) => c.confidence >= 0.8),
      ranked,
      target,
      "min_confidence 0.8",
    );
    expect(met).toMatchObject({ met: true, shortOf: null });
    expect(met.line).toMatch(/^met: 80\.0 % decided at 100\.0 %/);
  });

  it("a chain's row is met on both halves, and a miss names the share, the precision or both", () => {
    const target = { share: 0.5, precision: 0.97 };
    const row = (decided: number, correct: number, records = 100) =>
      gateRow(
        Array.from({ length: records }, (_, i) => call(0.9, i < correct, i < decided)),
        (c) => c.decided,
      );
    expect(judgeChainTarget(row(60, 60), target)).toMatchObject({ met: true, shortOf: null });
    // 55 decided, 2 wrong: 96.4 % — the precision half falls short, as on holdout5's one-call miss.
    const precision = judgeChainTarget(row(55, 53), target);
    expect(precision).toMatchObject({ met: false, shortOf: "levels" });
    expect(precision.line).toMatch(/short: the precision \(/);
    expect(judgeChainTarget(row(40, 40), target).line).toMatch(/short: the share decided \(/);
    expect(judgeChainTarget(row(40, 30), target).line).toMatch(/short: the share decided and the precision/);
    expect(judgeChainTarget(row(0, 0), target).line).toMatch(/the share decided and the precision/);
  });
});
