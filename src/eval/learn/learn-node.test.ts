/** The learning loop promotes a challenger that more decisions made better, and is reproducible from its seed. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModelFile, saveModelFile } from "../../distill/model-file.js";
import { loadTrustModel } from "../../distill/trust-model-file.js";
import type { TrustModelData } from "../../distill/trust-model.js";
import { defaultDelegateSpecs } from "../../compose/delegate-specs.js";
import { DistilledModelError } from "../../errors/distilled-model-error.js";
import { trainDistilled } from "../../distill/train-distilled.js";
import { learnNode } from "./learn-node.js";
import { LEARN_NODE, learnExamples } from "./learn.fixture.js";
import {
  applyLearnResult,
  championTrainedOn,
  fileSha256,
  nodeFiles,
  readLearnHistory,
} from "./node-files.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-learn-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse("2026-12-03T08:00:00Z");
/** A trust model whose probability is the confidence itself (its logit, weight 1), at `threshold`. */
const confidenceTrust = (threshold: number, decisions: number): TrustModelData => ({
  format: "deputy-trust-model",
  version: 1,
  signals: ["confidence"],
  calibrator: { method: "logistic", inputs: ["confidence"], mean: [0], scale: [1], weights: [1], bias: 0 },
  threshold,
  targetPrecision: 0.97,
  decisions,
  outOfFold: { folds: 5, accepted: 80, coverage: 0.5, precision: 0.99, wilsonLower: 0.97, auroc: 0.9 },
});

describe("learnNode", () => {
  it("promotes a challenger trained on more decisions, keeps the previous model and records the turn", async () => {
    const files = nodeFiles(join(dir, "a", "route.model.json"));
    // The champion: a dozen decisions of the team.
    const small = trainDistilled(learnExamples(12, 7, 10_000), { node: LEARN_NODE, heldOutShare: 0 }).model;
    saveModelFile(files.model, small);
    const before = readFileSync(files.model);
    const decisions = learnExamples(300);
    const result = await learnNode({
      node: LEARN_NODE,
      decisions,
      champion: { model: small },
      _internal: { now },
    });
    expect(result.counts).toMatchObject({ decisions: 300, championSaw: 0 });
    expect(result.counts.train + result.counts.heldOut).toBe(300);
    const challenger = result.challenger!.measured;
    const champion = result.champion!.measured;
    expect(challenger.share).toBeGreaterThan(champion.share);
    expect(challenger.precision).toBeGreaterThanOrEqual(0.97);
    expect(result.verdict.promote).toBe(true);
    // the curve rises with the decisions, its last point the challenger
    expect(result.curve.at(-1)).toMatchObject({ decisions: result.counts.train, share: challenger.share });
    expect(result.curve[0]!.decisions).toBeLessThan(result.counts.train);

    const entry = applyLearnResult(result, files, new Date(now()));
    expect(readFileSync(files.previous).equals(before)).toBe(true);
    expect(loadModelFile(files.model).training.examples).toBe(result.counts.train);
    const fit = result.challenger!.trust;
    // The challenger is judged as it will serve: through the trust model fitted with it, when there is one.
    expect(challenger.trustThreshold).toBe(fit.status === "fitted" ? fit.model.threshold : undefined);
    if (fit.status === "fitted") expect(loadTrustModel(files.trust).threshold).toBeGreaterThan(0);
    expect(entry).toMatchObject({
      at: "2026-12-03T08:00:00.000Z",
      promoted: true,
      modelSha256: fileSha256(files.model),
    });
    expect(readLearnHistory(files.history)).toHaveLength(1);

    // The next turn knows what the champion trained on, and holds none of it out.
    const trainedOn = championTrainedOn(files)!;
    expect(trainedOn.size).toBe(result.counts.train);
    const more = [...decisions, ...learnExamples(100, 9, 20_000)];
    const next = await learnNode({
      node: LEARN_NODE,
      decisions: more,
      champion: { model: loadModelFile(files.model), trainedOn },
    });
    expect(next.champion!.trainedOnKnown).toBe(true);
    // same seed: the earlier split stands, so the champion saw none of the held-out decisions
    expect(next.counts.championSaw).toBe(0);
    const shuffled = await learnNode({
      node: LEARN_NODE,
      decisions: more,
      seed: 2,
      curvePoints: 1,
      champion: { model: loadModelFile(files.model), trainedOn },
    });
    expect(shuffled.counts.championSaw).toBeGreaterThan(0);
    expect(shuffled.counts.heldOut + shuffled.counts.championSaw + shuffled.counts.train).toBe(more.length);
  });

  it("is reproducible from its seed", async () => {
    const decisions = learnExamples(120, 4);
    const one = await learnNode({ node: LEARN_NODE, decisions, seed: 5, curvePoints: 2, _internal: { now } });
    const two = await learnNode({ node: LEARN_NODE, decisions, seed: 5, curvePoints: 2, _internal: { now } });
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    expect(one.trainedOn).toHaveLength(one.counts.train);
  });

  it("keeps the champion when the challenger is no better, and writes no model file", async () => {
    const files = nodeFiles(join(dir, "b", "route.model.json"));
    const good = trainDistilled(learnExamples(400, 11, 30_000), { node: LEARN_NODE, heldOutShare: 0 }).model;
    saveModelFile(files.model, good);
    const before = readFileSync(files.model);
    const result = await learnNode({
      node: LEARN_NODE,
      decisions: learnExamples(30, 12),
      champion: { model: good },
    });
    expect(result.verdict.promote).toBe(false);
    applyLearnResult(result, files, new Date(now()));
    expect(readFileSync(files.model).equals(before)).toBe(true);
    expect(existsSync(files.previous)).toBe(false);
    expect(readLearnHistory(files.history)[0]).toMatchObject({
      promoted: false,
      reason: result.verdict.reason,
    });
  });

  it("writes the trust file with the model it was fitted for: a level given another model refuses it", async () => {
    const files = nodeFiles(join(dir, "c", "route.model.json"));
    const result = await learnNode({ node: LEARN_NODE, decisions: learnExamples(150, 13), curvePoints: 1 });
    const trust = confidenceTrust(0.9, 150);
    // Promoted with a fitted trust model, whatever these few decisions supported.
    applyLearnResult(
      {
        ...result,
        verdict: { ...result.verdict, promote: true },
        challenger: { ...result.challenger!, trust: { status: "fitted", model: trust, ignored: 0 } },
      },
      files,
      new Date(now()),
    );
    expect(loadTrustModel(files.trust).fittedFor).toEqual({
      kind: "distilled",
      spec: `distilled=${files.model}`,
      file: files.model,
      sha256: fileSha256(files.model),
    });
    const specs = defaultDelegateSpecs();
    expect((await specs.create(`distilled=${files.model}`)).trust?.threshold).toBe(0.9);
    // The model replaced by hand (deputy distill --out over it): the trust file beside it no longer fits.
    saveModelFile(
      files.model,
      trainDistilled(learnExamples(30, 14), { node: LEARN_NODE, heldOutShare: 0 }).model,
    );
    await expect(specs.create(`distilled=${files.model}`)).rejects.toSatisfy(
      (e) => DistilledModelError.isInstance(e) && e.code === "DISTILLED_TRUST_MISMATCH",
    );
  });

  it("measures a champion through its trust model, as a delegate node's gate judges it", async () => {
    const champion = trainDistilled(learnExamples(200, 7, 10_000), {
      node: LEARN_NODE,
      heldOutShare: 0,
    }).model;
    // The threshold holds almost every call back.
    const strict = confidenceTrust(0.999999, 200);
    const turn = (trust?: TrustModelData) =>
      learnNode({
        node: LEARN_NODE,
        decisions: learnExamples(120, 13),
        champion: { model: champion, ...(trust ? { trust } : {}) },
        curvePoints: 1,
        _internal: { now },
      });
    const raw = (await turn()).champion!.measured;
    const gated = (await turn(strict)).champion!.measured;
    expect(raw.trustThreshold).toBeUndefined();
    expect(raw.decided).toBeGreaterThan(0);
    expect(gated.trustThreshold).toBe(0.999999);
    expect(gated.minConfidence).toBe(raw.minConfidence);
    expect(gated.decided).toBeLessThan(raw.decided);
  });
});
