import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { alertTriageModel } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { saveModelFile } from "./model-file.js";
import { trustFileBeside } from "./register-spec.js";
import { fitTrustModel, TrustModel, type TrustModelData } from "./trust-model.js";
import { loadTrustFile, saveTrustFit, saveTrustModel, validateTrustFile } from "./trust-model-file.js";

// The `trust=FILE` option of every --delegate kind, the trust file found beside a distilled model, hostile trust
// files, and a run through the CLI on a real SQLite file.

const dir = mkdtempSync(join(tmpdir(), "deputy-trust-spec-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

/** A deterministic stream in [0, 1). */
function stream(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// An underconfident level: right almost always above confidence 0.3, a coin toss below.
const model: TrustModelData = (() => {
  const next = stream(11);
  const fit = fitTrustModel(
    Array.from({ length: 600 }, () => {
      const confidence = next();
      return { signals: { confidence }, correct: confidence > 0.3 ? next() > 0.005 : next() > 0.5 };
    }),
    { targetPrecision: 0.95 },
  );
  if (fit.status !== "fitted") throw new Error(fit.reason);
  return fit.model;
})();
const trustPath = join(dir, "level.trust.json");
saveTrustModel(trustPath, model);
const tooFew = join(dir, "too-few.trust.json");
saveTrustFit(tooFew, fitTrustModel([{ signals: { confidence: 0.9 }, correct: true }]));
const entries = file(
  "proposals.jsonl",
  JSON.stringify({ node: "d", proposal: { name: "t", arguments: {}, confidence: 0.5 } }) + "\n",
);

describe("trust=FILE on a --delegate spec", () => {
  it("gives the backend the trust model; trust=false and a fit with too few decisions leave the gate as today", async () => {
    const specs = defaultDelegateSpecs();
    const trusted = await specs.create(`scripted=${entries},trust=${trustPath}`);
    expect(trusted.trust?.threshold).toBe(model.threshold);
    expect(trusted.trust?.probability({ confidence: 0.9 })).toBeGreaterThan(model.threshold);
    expect((await specs.create(`scripted=${entries},trust=false`)).trust).toBeUndefined();
    expect(loadTrustFile(tooFew)).toMatchObject({ status: "too_few", decisions: 1, needed: 125 });
    expect((await specs.create(`scripted=${entries},trust=${tooFew}`)).trust).toBeUndefined();
    expect((await specs.create(`scripted=${entries}`)).trust).toBeUndefined();
  });

  it("stays on the backend the spec returns, whatever option wraps it and in whichever order", async () => {
    const specs = defaultDelegateSpecs().wrap("tag", (inner) => ({
      name: `${inner.name}+tag`,
      maxTools: inner.maxTools,
      maxInputChars: inner.maxInputChars,
      propose: (r) => inner.propose(r),
      close: () => inner.close(),
    }));
    for (const spec of [
      `scripted=${entries},trust=${trustPath},tag=x`,
      `scripted=${entries},tag=x,trust=${trustPath}`,
    ]) {
      const backend = await specs.create(spec);
      expect(backend.name).toBe("scripted+tag");
      expect(backend.trust?.threshold).toBe(model.threshold);
    }
  });

  it("a distilled model's trust file beside it is found; trust=false or another file wins", async () => {
    const modelPath = join(dir, "triage.model.json");
    saveModelFile(modelPath, alertTriageModel().model);
    const specs = defaultDelegateSpecs();
    expect((await specs.create(`distilled=${modelPath}`)).trust).toBeUndefined();
    expect(trustFileBeside(modelPath)).toBe(join(dir, "triage.model.trust.json"));
    saveTrustModel(trustFileBeside(modelPath), model);
    const found = await specs.create(`distilled=${modelPath}`);
    // Still the distilled delegate (deputy eval reads its recommended threshold by its class).
    expect(found).toBeInstanceOf(DistilledDelegate);
    expect(found.trust?.threshold).toBe(model.threshold);
    expect((await specs.create(`distilled=${modelPath},trust=false`)).trust).toBeUndefined();
    expect((await specs.create(`distilled=${modelPath},trust=${tooFew}`)).trust).toBeUndefined();
    rmSync(trustFileBeside(modelPath));
  });

  it("a missing, unreadable or malformed trust file is one DistilledModelError when the backend is built", async () => {
    const specs = defaultDelegateSpecs();
    for (const text of [undefined, "{ not json", "[]", JSON.stringify({ ...model, threshold: 2 })]) {
      const path = text === undefined ? join(dir, "missing.trust.json") : file("bad.trust.json", text);
      const made = specs.create(`scripted=${entries},trust=${path}`);
      await expect(made).rejects.toSatisfy(DistilledModelError.isInstance);
      await expect(made).rejects.toThrow(path);
    }
  });

  it("hostile trust files: a file is a trust model or a refused fit, or one DistilledModelError, never a crash", () => {
    const field = fc.constantFrom(
      "format",
      "version",
      "signals",
      "calibrator",
      "threshold",
      "targetPrecision",
      "decisions",
      "outOfFold",
      "status",
      "needed",
      "reason",
    );
    const calibratorField = fc.constantFrom("method", "mean", "scale", "weights", "bias", "inputs");
    const hostile = fc.oneof(
      fc.jsonValue(),
      fc.record({ key: field, value: fc.jsonValue() }).map(({ key, value }) => ({ ...model, [key]: value })),
      fc
        .record({ key: calibratorField, value: fc.jsonValue() })
        .map(({ key, value }) => ({ ...model, calibrator: { ...model.calibrator, [key]: value } })),
      fc
        .record({ status: fc.constantFrom("too_few", "unsupported", "fitted"), needed: fc.jsonValue() })
        .map((r) => ({ format: "deputy-trust-model", version: 1, decisions: 3, reason: "x", ...r })),
    );
    const signals = fc.record(
      {
        confidence: fc.oneof(fc.constant(null), fc.double()),
        agreesWithPrevious: fc.boolean(),
        nearestSimilarity: fc.double(),
      },
      { requiredKeys: ["confidence"] },
    );
    fc.assert(
      fc.property(hostile, signals, (value, s) => {
        let loaded: ReturnType<typeof validateTrustFile>;
        try {
          loaded = validateTrustFile(value, "hostile.trust.json");
        } catch (error) {
          expect(DistilledModelError.isInstance(error)).toBe(true);
          expect((error as Error).message).toMatch(/^Distilled model hostile\.trust\.json is not valid: /);
          return;
        }
        if (loaded.status !== "fitted") return;
        const path = file("hostile.trust.json", JSON.stringify(value));
        const trust = loadTrustFile(path);
        if (trust.status !== "fitted") throw new Error("a fitted model read back as a refusal");
        // A file that passed the check is used by the gate: any probability is null or from 0 to 1.
        const p = new TrustModel(trust.model).probability(s);
        expect(p === null || (p >= 0 && p <= 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("deputy run with distilled=…,trust=… on a SQLite store", () => {
  const example = (name: string) =>
    fileURLToPath(new URL(`../../examples/alert-triage/${name}`, import.meta.url));
  const previous = process.env.DEPUTY_OUTBOX;
  afterEach(() => {
    if (previous === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = previous;
  });
  async function cli(args: string[]) {
    let stdout = "";
    let stderr = "";
    const code = await main(args, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      isTTY: false,
    });
    return { code, stdout, stderr };
  }
  async function run(name: string, spec: string) {
    process.env.DEPUTY_OUTBOX = join(dir, `${name}.outbox.jsonl`);
    const store = join(dir, `${name}.db`);
    const traces = join(dir, `${name}.traces.jsonl`);
    const r = await cli([
      "run",
      example("plan.json"),
      "--tools",
      example("tools.mjs"),
      "--delegate",
      spec,
      "--store",
      store,
      "--traces",
      traces,
      "--json",
    ]);
    const lines = existsSync(traces) ? readFileSync(traces, "utf8").trim().split("\n") : [];
    return { ...r, store, traces: lines.map((l) => JSON.parse(l) as Record<string, any>) };
  }

  it("judges each proposal by its trusted probability and records why; a bad trust file is exit 2 with nothing created", async () => {
    const modelPath = join(dir, "run.model.json");
    saveModelFile(modelPath, alertTriageModel().model);
    const trusted = await run("trusted", `distilled=${modelPath},trust=${trustPath}`);
    expect(trusted.stderr).toBe("");
    const judged = trusted.traces.filter((t) => t.nodeId === "triage_items" && t.trust);
    expect(judged.length).toBeGreaterThan(0);
    for (const t of judged) {
      expect(t.trust).toMatchObject({
        confidence: t.proposal.confidence,
        threshold: model.threshold,
        minConfidence: 0.8,
      });
      const passes = t.trust.probability >= Math.max(model.threshold, 0.8);
      if (t.verdict === "accepted") expect(passes).toBe(true);
      if (t.verdict === "low_confidence") expect(passes).toBe(false);
    }
    // What the trust model is for: calls an underconfident level was right about, below the raw min_confidence.
    expect(judged.some((t) => t.verdict === "accepted" && t.proposal.confidence < 0.8)).toBe(true);
    // The same run without the file: the raw confidence against min_confidence, nothing about trust.
    const plain = await run("plain", `distilled=${modelPath}`);
    expect(plain.traces.some((t) => "trust" in t)).toBe(false);
    for (const t of plain.traces.filter((t) => t.verdict === "accepted" && t.nodeId === "triage_items"))
      expect(t.proposal.confidence).toBeGreaterThanOrEqual(0.8);

    const bad = await run("bad", `distilled=${modelPath},trust=${file("broken.trust.json", "{}")}`);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/broken\.trust\.json is not valid: format/);
    expect(existsSync(bad.store)).toBe(false);
  });
});
