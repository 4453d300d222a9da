import { describe, expect, it } from "vitest";
import { Calibrator, logit, solve } from "./calibrator.js";

describe("Calibrator", () => {
  it("maps scores to observed frequencies", () => {
    // Ten rows per score on a grid, as many of them right as the true probability says.
    const truth = (z: number) => 1 / (1 + Math.exp(-(2 * z - 1)));
    const rows = Array.from({ length: 400 }, (_, i) => -4 + (8 * i) / 399).flatMap((z) =>
      Array.from({ length: 10 }, (_, k) => ({ inputs: [z, 0], correct: k < Math.round(10 * truth(z)) })),
    );
    const c = Calibrator.fit(rows, 1e-4);
    for (const z of [-2, 0, 1, 3]) expect(c.confidence([z, 0])).toBeCloseTo(truth(z), 1);
    expect(c.toJSON().inputs).toEqual(["x0", "x1"]);
  });

  it("stores the input names it was given", () => {
    const rows = [0, 1, 2, 3].map((x) => ({ inputs: [x], correct: x >= 2 }));
    expect(Calibrator.fit(rows, 0.01, ["callLogit"]).toJSON().inputs).toEqual(["callLogit"]);
  });

  it("keeps logits finite at certainty", () => {
    expect(logit(0.5)).toBe(0);
    expect(Number.isFinite(logit(1))).toBe(true);
    expect(logit(0)).toBeCloseTo(-logit(1), 9);
  });

  it("solves small linear systems", () => {
    expect(
      solve(
        [
          [2, 1],
          [1, 3],
        ],
        [3, 5],
      ).map((v) => Number(v.toFixed(9))),
    ).toEqual([0.8, 1.4]);
  });
});
