import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { LEARN_NODE, learnExamples } from "../eval/learn/learn.fixture.js";
import { saveModelFile } from "./model-file.js";
import { trustFileBeside } from "./register-spec.js";
import { trainDistilled } from "./train-distilled.js";
import { checkTrustFittedFor, trustFittedFor } from "./trust-fitted-for.js";
import type { TrustModelData } from "./trust-model.js";
import {
  loadTrustFile,
  loadTrustModel,
  saveTrustFit,
  saveTrustModel,
  validateTrustModel,
} from "./trust-model-file.js";

// A trust file records the model it was fitted for, and a level given another model refuses it.

const dir = mkdtempSync(join(tmpdir(), "deputy-trust-fitted-for-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Two distilled models of the same node, trained on different decisions (files a and b). */
const models = (() => {
  const write = (name: string, seed: number) => {
    const path = join(dir, name);
    saveModelFile(path, trainDistilled(learnExamples(40, seed), { node: LEARN_NODE, heldOutShare: 0 }).model);
    return path;
  };
  return { a: write("a.model.json", 1), b: write("b.model.json", 2) };
})();

const trust: TrustModelData = {
  format: "deputy-trust-model",
  version: 1,
  signals: ["confidence"],
  calibrator: { method: "logistic", inputs: ["confidence"], mean: [0], scale: [1], weights: [1], bias: 0 },
  threshold: 0.9,
  targetPrecision: 0.95,
  decisions: 200,
  outOfFold: { folds: 5, accepted: 100, coverage: 0.5, precision: 0.99, wilsonLower: 0.95, auroc: 0.9 },
};

describe("what a trust file was fitted for", () => {
  it("records the kind, the spec without secrets or trust=, and the file's sha256", async () => {
    const specs = defaultDelegateSpecs();
    const spec = `distilled=${models.a},trust=old.trust.json`;
    expect(await trustFittedFor(specs.resolve(spec), spec)).toEqual({
      kind: "distilled",
      spec: `distilled=${models.a}`,
      file: models.a,
      sha256: sha256(models.a),
    });
    // A server has no file: kind and spec only, a password in its URL redacted.
    const server = "llama-server=http://user:hunter2-secret@127.0.0.1:8080,name=small";
    const record = await trustFittedFor(specs.resolve(server), server);
    expect(record).toEqual({
      kind: "llama-server",
      spec: expect.stringContaining("llama-server=http://user:"),
    });
    expect(record.spec).not.toContain("hunter2-secret");
  });

  it("a level given another model refuses the file: one DistilledModelError naming both files", async () => {
    const fittedFor = await trustFittedFor({ kind: "distilled", main: models.a }, `distilled=${models.a}`);
    const file = join(dir, "a.trust.json");
    saveTrustModel(file, { ...trust, fittedFor });
    expect(loadTrustModel(file).fittedFor).toEqual(fittedFor);
    const specs = defaultDelegateSpecs();
    expect((await specs.create(`distilled=${models.a},trust=${file}`)).trust?.threshold).toBe(0.9);
    const refused = specs.create(`distilled=${models.b},trust=${file}`);
    await expect(refused).rejects.toSatisfy(
      (e) => DistilledModelError.isInstance(e) && e.code === "DISTILLED_TRUST_MISMATCH" && e.path === file,
    );
    await expect(refused).rejects.toThrow(
      new RegExp(
        `^Distilled model ${file} is not valid: it was fitted for ${models.a} \\(sha256 ${sha256(models.a).slice(0, 12)}…\\), not for ${models.b} \\(sha256 ${sha256(models.b).slice(0, 12)}…\\)`,
      ),
    );
    // Found beside the other model, the same; trust=false goes without it.
    saveTrustModel(trustFileBeside(models.b), { ...trust, fittedFor });
    await expect(specs.create(`distilled=${models.b}`)).rejects.toSatisfy(DistilledModelError.isInstance);
    expect((await specs.create(`distilled=${models.b},trust=false`)).trust).toBeUndefined();
    rmSync(trustFileBeside(models.b));
  });

  it("a file written before the record still loads and gates any model", async () => {
    const older = join(dir, "older.trust.json");
    saveTrustModel(older, trust);
    expect(JSON.parse(readFileSync(older, "utf8"))).not.toHaveProperty("fittedFor");
    const specs = defaultDelegateSpecs();
    for (const model of [models.a, models.b])
      expect((await specs.create(`distilled=${model},trust=${older}`)).trust?.threshold).toBe(0.9);
  });

  it("a refused fit keeps the record too; a malformed record is bad input", () => {
    const fittedFor = { kind: "scripted", spec: "scripted=x.jsonl" };
    const refused = join(dir, "refused.trust.json");
    saveTrustFit(
      refused,
      { status: "too_few", decisions: 3, needed: 125, reason: "3 decisions", ignored: 0 },
      fittedFor,
    );
    expect(loadTrustFile(refused)).toMatchObject({ status: "too_few", fittedFor });
    for (const bad of [
      null,
      "a.json",
      { kind: "distilled" },
      { kind: "distilled", spec: "s", sha256: "abc" },
    ]) {
      const path = join(dir, "bad.trust.json");
      writeFileSync(path, JSON.stringify({ ...trust, fittedFor: bad }));
      expect(() => loadTrustModel(path)).toThrow(/fittedFor: expected/);
    }
  });

  it("hostile records: a file loads with a well-formed record or is one DistilledModelError; the check never crashes", async () => {
    const record = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          kind: fc.oneof(fc.string(), fc.jsonValue()),
          spec: fc.oneof(fc.string(), fc.jsonValue()),
          file: fc.oneof(fc.constant(models.a), fc.string(), fc.jsonValue()),
          sha256: fc.oneof(fc.constant(sha256(models.a)), fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        record,
        fc.constantFrom(models.a, models.b, dir, "http://127.0.0.1:1"),
        async (r, main) => {
          let loaded: TrustModelData;
          try {
            loaded = validateTrustModel({ ...trust, fittedFor: r }, "hostile.trust.json");
          } catch (error) {
            expect(DistilledModelError.isInstance(error)).toBe(true);
            expect((error as Error).message).toContain("fittedFor: expected");
            return;
          }
          try {
            await checkTrustFittedFor("hostile.trust.json", loaded.fittedFor, { kind: "distilled", main });
          } catch (error) {
            // Refused only for a recorded sha256 that another existing file does not have.
            expect(DistilledModelError.isInstance(error) && error.code === "DISTILLED_TRUST_MISMATCH").toBe(
              true,
            );
            expect(loaded.fittedFor?.sha256).toBeDefined();
            expect([models.a, models.b]).toContain(main);
            expect(loaded.fittedFor!.sha256).not.toBe(sha256(main));
            return;
          }
          if (loaded.fittedFor?.sha256 !== undefined && (main === models.a || main === models.b))
            expect(loaded.fittedFor.sha256).toBe(sha256(main));
        },
      ),
      { numRuns: 200 },
    );
  });
});
