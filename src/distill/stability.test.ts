import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import { InvalidOptionError } from "../errors/index.js";
import { alertTriageExamples, alertTriageModel, alertTriageTools } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { saveModelFile } from "./model-file.js";
import { decisionKey, perturbedInstructions } from "./stability.js";
import { exactMatch } from "./training-examples.js";

const PREFIX = "Analyze this alert and select the most appropriate action: ";

describe("the stability check's copies", () => {
  it("are the same for the same instruction, keep the prefix, and only leave words out", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[^ ]{1,8}$/), { maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 50 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (words, withPrefix, samples, drop) => {
          const body = words.join(" ");
          const instruction = (withPrefix ? PREFIX : "") + body;
          const copies = perturbedInstructions(instruction, PREFIX, samples, drop);
          expect(copies).toEqual(perturbedInstructions(instruction, PREFIX, samples, drop));
          expect(copies).toHaveLength(samples);
          for (const copy of copies) {
            if (withPrefix) expect(copy.startsWith(PREFIX)).toBe(true);
            const rest = copy.slice(withPrefix ? PREFIX.length : 0);
            const kept = rest === "" ? [] : rest.split(" ");
            const original = body.split(" ");
            let at = 0;
            for (const w of kept) {
              while (at < original.length && original[at] !== w) at++;
              expect(at).toBeLessThan(original.length);
              at++;
            }
          }
        },
      ),
    );
  });

  it("compare the tool and the arguments chosen from a set, not the text copied into a call", () => {
    const isClass = (_tool: string, argument: string) => argument === "reason";
    const a = {
      name: "ignore_alert",
      arguments: { alert_id: "ALR-1", reason: "self-resolved", note: "x y" },
    };
    const b = { name: "ignore_alert", arguments: { reason: "self-resolved", note: "y", alert_id: "ALR-1" } };
    expect(decisionKey(a, isClass)).toBe(decisionKey(b, isClass));
    expect(decisionKey({ ...a, arguments: { reason: "informational" } }, isClass)).not.toBe(
      decisionKey(a, isClass),
    );
    expect(decisionKey({ name: null, arguments: {} }, isClass)).toBe("null");
  });
});

describe("DistilledDelegate with the stability check", () => {
  const context = { runId: "r", nodeId: "triage_items" };

  it("only takes confidence away, and more often from wrong calls than from right ones", async () => {
    const model = alertTriageModel().model;
    const plain = new DistilledDelegate({ model });
    const stable = new DistilledDelegate({ model, stability: { min: 1 } });
    const tools = alertTriageTools();
    const min = model.recommendedMinConfidence;
    const zeroed = { right: 0, wrong: 0 };
    const confident = { right: 0, wrong: 0 };
    for (const e of alertTriageExamples("heldOut")) {
      const request = { instruction: e.instruction, facts: e.facts, tools, context };
      const p = await plain.propose(request);
      const s = await stable.propose(request);
      expect({ name: s.name, arguments: s.arguments }).toEqual({ name: p.name, arguments: p.arguments });
      expect([p.confidence, 0]).toContain(s.confidence);
      if ((p.confidence ?? 0) < min) continue;
      const right = exactMatch(p, e.call) ? "right" : "wrong";
      confident[right]++;
      if (s.confidence === 0) zeroed[right]++;
    }
    expect(zeroed.right + zeroed.wrong).toBeGreaterThan(0);
    expect(zeroed.right).toBeLessThan(confident.right);
    // The share of wrong confident calls it stops is at least the share of right ones.
    expect(zeroed.wrong * confident.right).toBeGreaterThanOrEqual(zeroed.right * confident.wrong);
  });

  it("is a spec option: stable=MIN from 0 to 1, part of the cache identity; anything else is one clear error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-stable-"));
    const file = join(dir, "model.json");
    saveModelFile(file, alertTriageModel().model);
    const specs = defaultDelegateSpecs();
    const plain = (await specs.create(`distilled=${file}`)) as DistilledDelegate;
    const stable = (await specs.create(`distilled=${file},stable=0.75`)) as DistilledDelegate;
    expect(stable.cacheIdentity).not.toBe(plain.cacheIdentity);
    for (const bad of ["1.5", "-0.1", "", "most"])
      await expect(specs.create(`distilled=${file},stable=${bad}`)).rejects.toThrow(InvalidOptionError);
    await expect(specs.create(`distilled=${file},stable=2`)).rejects.toThrow(
      /stable in --delegate .*from 0 to 1/,
    );
    expect(
      () => new DistilledDelegate({ model: alertTriageModel().model, stability: { min: 0.5, samples: 0 } }),
    ).toThrow(InvalidOptionError);
  });
});
