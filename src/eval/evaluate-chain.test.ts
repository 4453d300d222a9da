import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withTrust } from "../delegate/proposal-trust.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { TrustModel, type TrustModelData, type TrustSignal } from "../distill/trust-model.js";
import { loadTrustModel, saveTrustModel } from "../distill/trust-model-file.js";
import { readDecisionSuite } from "./decision-suite.js";
import { FIRST, SECOND, writeDecisionFixture } from "./decisions.fixture.js";
import { evaluateChain, type ChainAnswer } from "./evaluate-chain.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-eval-chain-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = writeDecisionFixture(dir);

function chain() {
  return [
    { delegate: new ScriptedDelegate({ entries: FIRST, name: "first" }), minConfidence: 0.8 },
    { delegate: new ScriptedDelegate({ entries: SECOND, name: "second" }), minConfidence: 0.6 },
  ];
}

/** A clock that makes the n-th proposal take n ms (1, 2, 3, …). */
function steppingClock() {
  let t = 0;
  let step = 0;
  let started = true;
  return () => {
    started = !started;
    if (started) t += ++step;
    return t;
  };
}

describe("evaluateChain on the team's decisions", () => {
  const suite = readDecisionSuite(files.decisions);

  it("reads the six decisions and leaves out the hop nobody decided", () => {
    expect(suite.cases.map((c) => c.call.name)).toEqual(["page", "ticket", "ticket", "page", null, "ticket"]);
    expect(suite.skipped.notLabelled).toBe(1);
    expect(suite.cases[0]!.at).toBe(`${files.decisions}:1`);
  });

  it("asks each level only what the one before passed on and scores it exactly", async () => {
    const score = await evaluateChain(chain(), suite.cases, { _internal: { now: steppingClock() } });
    const [first, second] = score.levels;
    expect(first).toMatchObject({
      delegate: "first",
      minConfidence: 0.8,
      asked: 6,
      decided: 3,
      correct: 1,
      exact: 3, // 0, 2 (below the gate) and 4 (declined where the person declined)
      verdicts: { accepted: 3, low_confidence: 1, declined: 1, backend_error: 1 },
    });
    expect(first!.decidedShare).toBe(0.5);
    expect(first!.precision).toBeCloseTo(1 / 3, 10);
    expect(first!.exactAccuracy).toBe(0.5);
    expect(first!.precisionInterval![0]).toBeCloseTo(0.0615, 4);
    expect(first!.precisionInterval![1]).toBeCloseTo(0.7923, 4);
    // The n-th proposal takes n ms; the first level made the 1st, 2nd, 3rd, 5th, 6th and 8th: nearest-rank
    // median 3, p90 8; the second the 4th, 7th and 9th.
    expect(first!.latencyMs).toEqual({ median: 3, p90: 8 });
    expect(second).toMatchObject({ asked: 3, decided: 2, correct: 1, exact: 2, precision: 0.5 });
    expect(second!.decidedShare).toBeCloseTo(2 / 6, 10);
    expect(second!.precisionInterval![0]).toBeCloseTo(0.0945, 4);
    expect(second!.precisionInterval![1]).toBeCloseTo(0.9055, 4);
    expect(second!.latencyMs).toEqual({ median: 7, p90: 9 });
    expect(score).toMatchObject({ records: 6, decided: 5, correct: 2, passedOn: 1, precision: 0.4 });
    expect(score.decidedShare).toBeCloseTo(5 / 6, 10);
    expect(score.precisionInterval![0]).toBeCloseTo(0.1176, 4);
    expect(score.precisionInterval![1]).toBeCloseTo(0.7693, 4);
  });

  it("scores a named free-text argument by its rule, not exactly", async () => {
    const loose = await evaluateChain(chain(), suite.cases, { freeText: { names: ["summary"] } });
    expect(loose.levels[0]).toMatchObject({ correct: 2, exact: 4 });
    expect(loose.correct).toBe(3);
    // "eu-west API failing" holds 4 of the person's 5 words ("API failing in eu-west"): 0.8.
    const strict = await evaluateChain(chain(), suite.cases, {
      freeText: { names: ["summary"], minOverlap: 0.9 },
    });
    expect(strict.levels[0]!.correct).toBe(1);
    const enough = await evaluateChain(chain(), suite.cases, {
      freeText: { names: ["summary"], minOverlap: 0.8 },
    });
    expect(enough.levels[0]!.correct).toBe(2);
  });

  it("a level alone decides what it is sure of and passes the rest to a person", async () => {
    const score = await evaluateChain([chain()[0]!], suite.cases);
    expect(score).toMatchObject({ decided: 3, correct: 1, passedOn: 3 });
  });
});

/** A trust model written to a file: the logistic map `sigmoid(bias + Σ weights · signals)`, and its threshold. */
function trustFile(name: string, signals: TrustSignal[], weights: number[], bias: number, threshold: number) {
  const model: TrustModelData = {
    format: "deputy-trust-model",
    version: 1,
    signals,
    calibrator: {
      method: "logistic",
      inputs: signals,
      mean: signals.map(() => 0),
      scale: signals.map(() => 1),
      weights,
      bias,
    },
    threshold,
    targetPrecision: 0.95,
    decisions: 200,
    outOfFold: { folds: 5, accepted: 100, coverage: 0.5, precision: 0.99, wilsonLower: 0.95, auroc: 0.9 },
  };
  const path = join(dir, name);
  saveTrustModel(path, model);
  return new TrustModel(loadTrustModel(path));
}

describe("evaluateChain with a level's trust model", () => {
  const suite = readDecisionSuite(files.decisions);

  it("judges as a node's gate does: the trusted probability against the model's threshold and min_confidence", async () => {
    // Level 1 trusts its confidence itself (p = confidence), from 0.93: its 0.9 on record 1 (a wrong priority),
    // which min_confidence 0.8 passes, no longer does. Level 2 trusts only a call the level before also proposed
    // (p 0.98 when it agrees, 0.02 when not), whatever its own confidence.
    const first = withTrust(
      new ScriptedDelegate({ entries: FIRST, name: "first" }),
      trustFile("first.trust.json", ["confidence"], [1], 0, 0.93),
    );
    const second = withTrust(
      new ScriptedDelegate({ entries: SECOND, name: "second" }),
      trustFile("second.trust.json", ["confidence", "agreesWithPrevious"], [0, 8], -4, 0.9),
    );
    const answers: ChainAnswer[] = [];
    const score = await evaluateChain(
      [
        { delegate: first, minConfidence: 0.8 },
        { delegate: second, minConfidence: 0.6 },
      ],
      suite.cases,
      { onProposal: (a) => answers.push(a) },
    );
    const [one, two] = score.levels;
    // Level 1 decides 0 (right) and 3 (its summary worded otherwise); 1 and 2 fall below the trust threshold.
    expect(one).toMatchObject({
      trustGate: { threshold: 0.93 },
      asked: 6,
      decided: 2,
      correct: 1,
      verdicts: { accepted: 2, low_confidence: 2, declined: 1, backend_error: 1 },
    });
    // Level 2 is asked 1, 2, 4 and 5: it has no answer for 1; on 2 it agrees with level 1's call and is right;
    // on 4 it calls a tool where level 1 declined, on 5 level 1 failed: neither agrees, neither is decided.
    expect(two).toMatchObject({
      trustGate: { threshold: 0.9 },
      asked: 4,
      decided: 1,
      correct: 1,
      verdicts: { backend_error: 1, accepted: 1, low_confidence: 2 },
    });
    expect(score).toMatchObject({ decided: 3, correct: 2, passedOn: 3 });
    // The same chain without the trust models: 5 decided, 2 right (chain() above).
    const plain = await evaluateChain(chain(), suite.cases);
    expect(plain).toMatchObject({ decided: 5, correct: 2, passedOn: 1 });
    expect(plain.levels[0]!.trustGate).toBeUndefined();
    // The signals are the gate's: agreement with the level before in this chain, absent at the first level.
    const signals = (level: number, item: number) =>
      answers.find((a) => a.level === level && a.item === item)?.signals;
    expect(signals(0, 2)).toEqual({ confidence: 0.5 });
    expect(signals(1, 2)).toEqual({ confidence: 0.7, agreesWithPrevious: true });
    expect(signals(1, 4)).toEqual({ confidence: 0.9, agreesWithPrevious: false });
    expect(signals(1, 5)).toEqual({ confidence: 0.4, agreesWithPrevious: false });
  });

  it("a level whose tools do not fit is no hop: the next level's agreement is with the level asked before it", async () => {
    const narrow = new ScriptedDelegate({ entries: [], name: "narrow", maxTools: 1 });
    const second = withTrust(
      new ScriptedDelegate({ entries: SECOND, name: "second" }),
      trustFile("agree.trust.json", ["confidence", "agreesWithPrevious"], [0, 8], -4, 0.9),
    );
    const answers: ChainAnswer[] = [];
    const score = await evaluateChain(
      [
        { delegate: new ScriptedDelegate({ entries: FIRST, name: "first" }), minConfidence: 0.8 },
        { delegate: narrow },
        { delegate: second },
      ],
      suite.cases,
      { onProposal: (a) => answers.push(a) },
    );
    expect(score.levels[1]!.verdicts).toEqual({ too_many_tools: 3 });
    // Record 2: level 1 proposed the call level 3 makes; the level between was not asked.
    expect(answers.find((a) => a.level === 2 && a.item === 2)).toMatchObject({
      previous: { name: "ticket", arguments: { alert_id: "A3", priority: "P2" } },
      signals: { agreesWithPrevious: true },
      verdict: "accepted",
    });
    // With no level asked before it, a model that reads agreement cannot score the call (the gate's `unscored`).
    const alone: ChainAnswer[] = [];
    const again = withTrust(
      new ScriptedDelegate({ entries: SECOND, name: "second" }),
      trustFile("agree.trust.json", ["confidence", "agreesWithPrevious"], [0, 8], -4, 0.9),
    );
    await evaluateChain([{ delegate: narrow }, { delegate: again }], suite.cases, {
      onProposal: (a) => alone.push(a),
    });
    expect(alone.find((a) => a.level === 1 && a.item === 2)).toMatchObject({
      verdict: "unscored",
      signals: { confidence: 0.7 },
    });
    expect(alone.find((a) => a.level === 1 && a.item === 2)!.signals).not.toHaveProperty(
      "agreesWithPrevious",
    );
  });
});
