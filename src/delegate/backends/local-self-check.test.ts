import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Proposal } from "../protocol.js";
import { applySelfCheck, selfCheckPrompt, selfCheckTask, yesShare } from "./local-self-check.js";

const call = (confidence: number | null): Proposal => ({
  name: "get_weather",
  arguments: { city: "Oslo" },
  confidence,
  backend: "local",
  latencyMs: 1,
});
const side = (t: number) => (t === 1 ? "yes" : t === 2 ? "no" : undefined);

describe("the self-check", () => {
  it("scores the share of yes among yes and no, ignoring every other token", () => {
    expect(
      yesShare(
        [
          [1, 0.3],
          [2, 0.1],
          [3, 0.6],
        ],
        side,
      ),
    ).toBeCloseTo(0.75);
    // Neither answer among the candidates: no evidence either way.
    expect(yesShare([[3, 1]], side)).toBe(0.5);
  });

  it("declines a call below the threshold and records the call it replaced", () => {
    const declined = applySelfCheck(call(0.99), 0.4, 0.7);
    expect(declined).toMatchObject({ name: null, arguments: {}, confidence: null });
    expect(declined.selfCheck).toEqual({
      score: 0.4,
      threshold: 0.7,
      callConfidence: 0.99,
      declined: "get_weather",
    });
  });

  it("keeps a call at or above the threshold with its confidence times the score", () => {
    const kept = applySelfCheck(call(0.9), 0.8, 0.7);
    expect(kept.name).toBe("get_weather");
    expect(kept.confidence).toBeCloseTo(0.72);
    expect(kept.selfCheck).toEqual({ score: 0.8, threshold: 0.7, callConfidence: 0.9 });
    expect(applySelfCheck(call(null), 0.8, 0.7).confidence).toBeNull();
  });

  it("never makes a call, never raises a confidence, and declines exactly below the threshold", () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        (confidence, score, threshold, isDecline) => {
          const before = isDecline ? { ...call(confidence), name: null, arguments: {} } : call(confidence);
          const after = applySelfCheck(before, score, threshold);
          if (before.name === null) {
            expect(after).toEqual(before);
            return;
          }
          expect(after.name === null).toBe(score < threshold);
          if (after.confidence !== null) expect(after.confidence).toBeLessThanOrEqual(confidence ?? 0);
        },
      ),
    );
  });

  it("shows the task, the tool and the arguments, and bounds the tool's description", () => {
    const prompt = selfCheckPrompt(
      selfCheckTask("Weather in Oslo?", { unit: "C" }),
      { name: "get_weather", description: "x".repeat(5000) },
      { city: "Oslo" },
    );
    expect(prompt).toContain('Weather in Oslo?\nFacts: {"unit":"C"}');
    expect(prompt).toContain('{"city":"Oslo"}');
    expect(prompt).toContain(`get_weather: ${"x".repeat(1000)}\n`);
    expect(prompt).not.toContain("x".repeat(1001));
    expect(selfCheckPrompt("t", { name: "f" }, {})).toContain("f: (no description)");
  });
});
