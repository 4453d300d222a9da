import { describe, expect, it } from "vitest";
import { ALERT_TRIAGE_NODE, alertTriageExamples, HAND_WRITTEN_SETS } from "./alert-triage.fixture.js";
import { MIN_VALIDATION, trainDistilled } from "./train-distilled.js";
import { planTraining } from "./training-plan.js";

const words = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);

describe("the example's generated alerts in sources' styles", () => {
  it.each(["styled", "sources", "notices"] as const)(
    "%s: copy no sentence, and no run of ten words (longer than a source's fixed format text), of the hand-written sets",
    (set) => {
      const handWritten = HAND_WRITTEN_SETS.flatMap((s) => alertTriageExamples(s));
      const runs = new Set<string>();
      for (const e of handWritten) {
        const w = words(e.instruction).slice(9); // after the node's template text
        for (let i = 0; i + 10 <= w.length; i++) runs.add(w.slice(i, i + 10).join(" "));
      }
      const exact = new Set(handWritten.map((e) => e.instruction));
      const generated = alertTriageExamples(set);
      expect(generated.length).toBeGreaterThanOrEqual(300);
      for (const e of generated) {
        expect(exact.has(e.instruction), e.instruction).toBe(false);
        const w = words(e.instruction).slice(9);
        for (let i = 0; i + 10 <= w.length; i++)
          expect(runs.has(w.slice(i, i + 10).join(" ")), e.instruction).toBe(false);
      }
    },
  );
});

describe("the example's hand-written sets", () => {
  it("share no alert: a measured set is never also trained on through another set", () => {
    const sets = HAND_WRITTEN_SETS;
    const seen = new Map<string, string>();
    for (const set of sets)
      for (const e of alertTriageExamples(set)) {
        const text = words(e.instruction).join(" ");
        expect(seen.get(text), `${set}: ${e.instruction}`).toBeUndefined();
        seen.set(text, set);
      }
    expect(seen.size).toBeGreaterThanOrEqual(1000);
  });
});

describe("choosing the threshold on a validation split of the training data", () => {
  const train = alertTriageExamples("train");
  const heldOut = alertTriageExamples("heldOut");
  const resolved = alertTriageExamples("escalations");

  it("uses the out-of-fold predictions of the resolved escalations, which are still trained on", () => {
    const validation = new Set(resolved.slice(0, 40));
    const r = trainDistilled([...train, ...validation], { node: ALERT_TRIAGE_NODE, heldOut, validation });
    expect(r.validationExamples).toBe(40);
    expect(r.tuningExamples).toBe(0);
    expect(r.trainingExamples).toBe(train.length + 40);
    expect(r.model.training).toMatchObject({ validation: 40, tuning: 0, heldOut: heldOut.length / 2 });
  });

  it(`falls back to the tuning half of the held-out set with fewer than ${MIN_VALIDATION}`, () => {
    const validation = new Set(resolved.slice(0, MIN_VALIDATION - 1));
    const r = trainDistilled([...train, ...validation], { node: ALERT_TRIAGE_NODE, heldOut, validation });
    expect(r.validationExamples).toBe(0);
    expect(r.tuningExamples).toBe(heldOut.length / 2);
  });
});

describe("out-of-domain variants for an encoder's training", () => {
  it("are made from at most maxVariantExamples examples, spread over the folds, and weigh as many", () => {
    const examples = alertTriageExamples("train");
    const all = planTraining(examples, { heldOut: [] });
    const some = planTraining(examples, { heldOut: [], maxVariantExamples: 100 });
    expect(all.variants.filter((v) => v.length > 0)).toHaveLength(examples.length);
    expect(all.variantWeight).toBe(1);
    const made = some.order.filter((i) => some.variants[i]!.length > 0);
    expect(made).toHaveLength(100);
    expect(new Set(made.map((i) => some.order.indexOf(i) % some.folds)).size).toBe(some.folds);
    expect(some.variantWeight).toBeCloseTo(examples.length / 100);
  });
});
