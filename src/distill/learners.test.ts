import { describe, expect, it } from "vitest";
import { Calibrator, solve } from "./calibrator.js";
import { CandidateRanker } from "./candidate-ranker.js";
import { recommendThreshold, thresholdTable } from "./evaluate.js";
import { countFamiliarity, familiarity } from "./familiarity.js";
import { seededRandom } from "./random.js";
import { SoftmaxClassifier } from "./softmax-classifier.js";

describe("SoftmaxClassifier", () => {
  const samples = [
    { features: ["w:down", "w:checkout"], label: 0 },
    { features: ["w:outage", "w:payments"], label: 0 },
    { features: ["w:slow", "w:search"], label: 1 },
    { features: ["w:latency", "w:slow"], label: 1 },
    { features: ["w:staging", "w:disk"], label: 2 },
    { features: ["w:staging", "w:test"], label: 2 },
  ];
  const classes = ["page", "ticket", "ignore"];

  it("learns separable classes, with probabilities that sum to 1", () => {
    const c = SoftmaxClassifier.train(samples, classes, { epochs: 40 });
    samples.forEach((s) => {
      const p = c.probabilities(s.features);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      expect(p.indexOf(Math.max(...p))).toBe(s.label);
    });
  });

  it("ignores unknown features and survives its model-file form", () => {
    const c = SoftmaxClassifier.train(samples, classes);
    const again = new SoftmaxClassifier(JSON.parse(JSON.stringify(c.toJSON())));
    const p = again.probabilities(["w:slow", "never:seen"]);
    const q = c.probabilities(["w:slow"]);
    expect(p.indexOf(Math.max(...p))).toBe(1);
    // Unknown features only change the length normalisation, never the ranking of a single known feature.
    expect(q.indexOf(Math.max(...q))).toBe(1);
  });

  it("is reproducible from its seed, and certain when there is one class", () => {
    const a = SoftmaxClassifier.train(samples, classes, { seed: 3 }).toJSON();
    const b = SoftmaxClassifier.train(samples, classes, { seed: 3 }).toJSON();
    expect(a).toEqual(b);
    const one = SoftmaxClassifier.train([{ features: ["x"], label: 0 }], ["only"]);
    expect([...one.probabilities(["y"])]).toEqual([1]);
  });
});

describe("CandidateRanker", () => {
  it("learns which candidate is right from its features", () => {
    // The right candidate follows a colon; its word varies.
    const groups = Array.from({ length: 30 }, (_, i) => ({
      candidates: [
        ["p=the", `w=a${i}`],
        ["p=:", `w=b${i}`],
        ["p=of", `w=c${i}`],
      ],
      gold: 1,
    }));
    const r = CandidateRanker.train(groups);
    const p = r.probabilities([
      ["p=the", "w=zz"],
      ["p=:", "w=yy"],
      ["p=of", "w=xx"],
    ]);
    expect(p.indexOf(Math.max(...p))).toBe(1);
    expect(p[1]!).toBeGreaterThan(0.9);
    expect(r.probabilities([]).length).toBe(0);
  });
});

describe("Calibrator", () => {
  it("maps scores to observed frequencies", () => {
    const random = seededRandom(5);
    const rows = Array.from({ length: 4000 }, () => {
      const z = random() * 8 - 4;
      const truth = 1 / (1 + Math.exp(-(2 * z - 1)));
      return { inputs: [z, 0, 0, 0], correct: random() < truth };
    });
    const c = Calibrator.fit(rows, 1e-4);
    for (const z of [-2, 0, 1, 3])
      expect(c.confidence([z, 0, 0, 0])).toBeCloseTo(1 / (1 + Math.exp(-(2 * z - 1))), 1);
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

describe("familiarity", () => {
  it("weighs words by rarity: template words count for nothing, unseen words count most", () => {
    const data = countFamiliarity([
      ["analyze", "checkout", "down"],
      ["analyze", "search", "slow"],
      ["analyze", "checkout", "slow"],
    ]);
    expect(familiarity(data, ["analyze"])).toEqual({ known: 0, unknown: 0 });
    const seen = familiarity(data, ["analyze", "search"]);
    expect(seen.known).toBeCloseTo(Math.log(4 / 2));
    const unseen = familiarity(data, ["zebra"]);
    expect(unseen).toEqual({ known: 0, unknown: Math.log(4) });
  });
});

describe("thresholds", () => {
  const predictions = [
    { confidence: 0.99, correct: true },
    { confidence: 0.95, correct: true },
    { confidence: 0.9, correct: true },
    { confidence: 0.8, correct: false },
    { confidence: 0.7, correct: true },
    { confidence: 0.3, correct: false },
  ];

  it("reports coverage and precision per threshold", () => {
    expect(thresholdTable(predictions, [0.9, 0.75, 0.999])).toEqual([
      { threshold: 0.9, coverage: 0.5, precision: 1 },
      { threshold: 0.75, coverage: 4 / 6, precision: 0.75 },
      { threshold: 0.999, coverage: 0, precision: null },
    ]);
  });

  it("recommends the smallest threshold that reaches the target precision, or 1 when none does", () => {
    expect(recommendThreshold(predictions, 0.98)).toBe(0.9);
    expect(recommendThreshold(predictions, 0.75)).toBe(0.7);
    expect(recommendThreshold([{ confidence: 0.9, correct: false }], 0.5)).toBe(1);
  });

  it("never recommends a threshold below the floor, and still 1 when nothing reaches the target", () => {
    expect(recommendThreshold(predictions, 0.75, 0.8)).toBe(0.8);
    expect(recommendThreshold(predictions, 0.98, 0.8)).toBe(0.9);
    expect(recommendThreshold([{ confidence: 0.9, correct: false }], 0.5, 0.8)).toBe(1);
  });
});
