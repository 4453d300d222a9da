import { describe, expect, it } from "vitest";
import { CandidateRanker } from "./candidate-ranker.js";
import { countFamiliarity, familiarity } from "./familiarity.js";
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
