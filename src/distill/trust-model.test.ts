import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../confidence/score-metrics.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { fitTrustModel, minimumDecisions, TrustModel, type TrustRow } from "./trust-model.js";
import { loadTrustModel, saveTrustModel, validateTrustModel } from "./trust-model-file.js";

/** A deterministic stream in [0, 1) (no Math.random: the fit must be reproducible). */
function stream(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("fitTrustModel", () => {
  it("needs n / (n + z²) ≥ target all-right decisions before any threshold can be supported", () => {
    expect(minimumDecisions(0.97)).toBe(125);
    expect(minimumDecisions(0.95)).toBe(73);
    for (const t of [0.9, 0.95, 0.97, 0.99]) {
      const n = minimumDecisions(t);
      expect(wilsonInterval(n, n)[0]).toBeGreaterThanOrEqual(t);
      expect(wilsonInterval(n - 1, n - 1)[0]).toBeLessThan(t);
    }
  });

  it("with too few decisions says how many it needs and fits nothing", () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ signals: { confidence: 0.99 }, correct: i > 0 }));
    const fit = fitTrustModel(rows);
    expect(fit).toMatchObject({ status: "too_few", decisions: 40, needed: 125 });
    expect(fit.status === "too_few" && fit.reason).toMatch(/40 decisions.*at least 125/);
  });

  it("learns where a level's confidence can be trusted, with the threshold's bound checked out of fold", () => {
    const next = stream(1);
    const rows: TrustRow[] = Array.from({ length: 600 }, () => {
      const confidence = next();
      // Right almost always above 0.6, a coin toss below.
      return { signals: { confidence }, correct: confidence > 0.6 ? next() > 0.005 : next() > 0.5 };
    });
    const fit = fitTrustModel(rows, { targetPrecision: 0.97 });
    if (fit.status !== "fitted") throw new Error(fit.reason);
    const { outOfFold, threshold, signals } = fit.model;
    expect(signals).toEqual(["confidence"]);
    expect(outOfFold.wilsonLower).toBeGreaterThanOrEqual(0.97);
    expect(outOfFold.coverage).toBeGreaterThan(0.25);
    const model = new TrustModel(fit.model);
    expect(model.accepts({ confidence: 0.99 })).toBe(true);
    expect(model.accepts({ confidence: 0.3 })).toBe(false);
    expect(model.probability({ confidence: 0.99 })!).toBeGreaterThanOrEqual(threshold);
  });

  it("lets agreement with the level before earn its place when confidence says nothing", () => {
    const next = stream(2);
    const rows: TrustRow[] = Array.from({ length: 800 }, () => {
      const agrees = next() < 0.5;
      return {
        signals: { confidence: 0.8 + next() * 0.2, agreesWithPrevious: agrees },
        correct: agrees ? next() > 0.003 : next() > 0.5,
      };
    });
    const fit = fitTrustModel(rows);
    if (fit.status !== "fitted") throw new Error(fit.reason);
    expect(fit.model.signals).toEqual(["confidence", "agreesWithPrevious"]);
    const model = new TrustModel(fit.model);
    expect(model.accepts({ confidence: 0.9, agreesWithPrevious: true })).toBe(true);
    expect(model.accepts({ confidence: 0.99, agreesWithPrevious: false })).toBe(false);
    // A signal the model reads that the proposal does not have: never accepted.
    expect(model.accepts({ confidence: 0.99 })).toBe(false);
  });

  it("claims nothing for a level that is wrong too often, and says no number of decisions would do", () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({
      signals: { confidence: (i % 10) / 10 },
      correct: i % 3 === 0,
    }));
    expect(fitTrustModel(rows)).toMatchObject({ status: "unsupported", needed: null, decisions: 300 });
  });

  it("never crashes on tiny or hostile decision sets, and never claims a threshold it cannot support", () => {
    const hostile = fc.oneof(
      fc.double(),
      fc.constant(null),
      fc.constant(Number.NaN),
      fc.string({ maxLength: 3 }),
      fc.constantFrom(0, 1, 1e-300, 1 - 1e-16),
    );
    const row = fc.record({
      signals: fc.oneof(
        fc.record(
          {
            confidence: hostile,
            agreesWithPrevious: fc.oneof(fc.boolean(), fc.constant(undefined)),
            nearestSimilarity: hostile,
          },
          { requiredKeys: ["confidence"] },
        ),
        fc.constant(null),
      ),
      correct: fc.oneof(fc.boolean(), fc.boolean(), fc.constant(1)),
    }) as fc.Arbitrary<TrustRow>;
    const sets = fc.oneof(
      fc.array(row, { maxLength: 8 }),
      // Enough valid rows to pass the count: the threshold's claim is what is checked.
      fc.array(
        fc.record({
          signals: fc.record({
            confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1)),
          }),
          correct: fc.boolean(),
        }),
        { minLength: 120, maxLength: 260 },
      ),
      // … and mostly right, so that some fits do claim a threshold.
      fc.array(
        fc.record({
          signals: fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }) }),
          correct: fc.integer({ min: 0, max: 99 }).map((x) => x > 1),
        }),
        { minLength: 120, maxLength: 260 },
      ),
    );
    let fitted = 0;
    fc.assert(
      fc.property(sets, fc.constantFrom(0.9, 0.97), (rows, target) => {
        const fit = fitTrustModel(rows, { targetPrecision: target });
        if (fit.status !== "fitted") {
          expect(fit.needed === null || fit.needed >= minimumDecisions(target)).toBe(true);
          return;
        }
        const { accepted, precision, wilsonLower } = fit.model.outOfFold;
        expect(accepted).toBeGreaterThanOrEqual(minimumDecisions(target));
        expect(wilsonInterval(Math.round(precision * accepted), accepted)[0]).toBeCloseTo(wilsonLower, 9);
        expect(wilsonLower).toBeGreaterThanOrEqual(target);
        fitted++;
        const p = new TrustModel(fit.model).probability({ confidence: 0.5 });
        expect(p === null || (p >= 0 && p <= 1)).toBe(true);
      }),
      { numRuns: 60 },
    );
    expect(fitted).toBeGreaterThan(0);
  });
});

describe("trust model files", () => {
  const rows: TrustRow[] = Array.from({ length: 300 }, (_, i) => {
    const confidence = ((i * 37) % 100) / 100;
    return { signals: { confidence }, correct: confidence >= 0.4 };
  });

  it("round-trip: a saved model loads to the same probabilities", () => {
    const fit = fitTrustModel(rows);
    if (fit.status !== "fitted") throw new Error(fit.reason);
    const dir = mkdtempSync(join(tmpdir(), "deputy-trust-"));
    const path = join(dir, "level-1.trust.json");
    saveTrustModel(path, fit.model);
    const loaded = new TrustModel(loadTrustModel(path));
    const original = new TrustModel(fit.model);
    for (const confidence of [0, 0.3, 0.5, 0.99])
      expect(loaded.probability({ confidence })).toBe(original.probability({ confidence }));
    rmSync(dir, { recursive: true, force: true });
  });

  it("a tampered or hostile file is one DistilledModelError listing what is wrong, never a crash", () => {
    const fit = fitTrustModel(rows);
    if (fit.status !== "fitted") throw new Error(fit.reason);
    const model = fit.model as unknown as Record<string, unknown>;
    fc.assert(
      fc.property(
        fc.constantFrom(
          "format",
          "version",
          "signals",
          "calibrator",
          "threshold",
          "targetPrecision",
          "decisions",
        ),
        fc.oneof(fc.anything(), fc.constant(Number.NaN), fc.constant([1, 2, 3])),
        (key, value) => {
          try {
            validateTrustModel({ ...model, [key]: value });
          } catch (error) {
            expect(DistilledModelError.isInstance(error)).toBe(true);
            expect((error as DistilledModelError).problems.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(() => validateTrustModel({ ...model, threshold: 2 })).toThrow(/threshold/);
    expect(() => validateTrustModel(null)).toThrow(/format/);
  });
});
