import { describe, expect, it } from "vitest";
import { ScriptedDelegate, type ScriptedEntry } from "../delegate/scripted-delegate.js";
import { TrustModel } from "../distill/trust-model.js";
import { fitChainTrust, trustRowsOf } from "./chain-trust.js";
import type { DecisionCase } from "./decision-suite.js";
import { TOOLS } from "./decisions.fixture.js";
import { evaluateChain, type ChainAnswer } from "./evaluate-chain.js";

const call = (priority: string) => ({ name: "ticket", arguments: { alert_id: "A1", priority } });

describe("trust rows from a chain", () => {
  it("keeps each level's readable calls with their signals, agreement from the second level on", () => {
    const answers: ChainAnswer[] = [
      { level: 0, item: 0, verdict: "accepted", proposal: call("P2"), confidence: 0.9, correct: true },
      { level: 0, item: 1, verdict: "low_confidence", proposal: call("P2"), confidence: 0.4, correct: false },
      {
        level: 0,
        item: 2,
        verdict: "declined",
        proposal: { name: null, arguments: {} },
        confidence: 0.8,
        correct: false,
      },
      { level: 0, item: 3, verdict: "backend_error", confidence: null, correct: false },
      {
        level: 1,
        item: 1,
        verdict: "accepted",
        proposal: call("P3"),
        confidence: 0.7,
        previous: call("P2"),
        correct: true,
      },
      {
        level: 1,
        item: 2,
        verdict: "unscored",
        proposal: call("P3"),
        confidence: null,
        examples: [0.83, 0.5],
        previous: call("P3"),
        correct: true,
      },
      { level: 1, item: 3, verdict: "invalid_args", proposal: call("P9"), confidence: 0.9, correct: false },
    ];
    expect(trustRowsOf(answers, 2)).toEqual([
      [
        { signals: { confidence: 0.9 }, correct: true },
        { signals: { confidence: 0.4 }, correct: false },
      ],
      [
        { signals: { confidence: 0.7, agreesWithPrevious: false }, correct: true },
        { signals: { confidence: null, agreesWithPrevious: true, nearestSimilarity: 0.83 }, correct: true },
      ],
    ]);
  });

  it("fits a level whose confidence tells right from wrong, and leaves a level with few calls as it is", async () => {
    // 300 decisions; level 1 is right when it is sure (confidence ≥ 0.5), wrong below; level 2 sees few.
    const cases: DecisionCase[] = Array.from({ length: 300 }, (_, i) => ({
      at: `gen:${i}`,
      nodeId: "triage",
      instruction: `alert ${i}`,
      facts: {},
      tools: TOOLS,
      call: call("P3"),
    }));
    const first: ScriptedEntry[] = cases.map((_, i) => {
      const confidence = ((i * 37) % 100) / 100;
      return { node: "triage", item: i, proposal: { ...call(confidence >= 0.5 ? "P3" : "P2"), confidence } };
    });
    const second: ScriptedEntry[] = cases.map((_, i) => ({
      node: "triage",
      item: i,
      proposal: { ...call("P3"), confidence: 0.9 },
    }));
    const answers: ChainAnswer[] = [];
    await evaluateChain(
      [
        { delegate: new ScriptedDelegate({ entries: first }), minConfidence: 0.2 },
        { delegate: new ScriptedDelegate({ entries: second }), minConfidence: 0.5 },
      ],
      cases,
      { onProposal: (a) => answers.push(a) },
    );
    const [level1, level2] = fitChainTrust(answers, 2, { targetPrecision: 0.97 });
    if (level1!.status !== "fitted") throw new Error(level1!.reason);
    const model = new TrustModel(level1!.model);
    expect(model.accepts({ confidence: 0.95 })).toBe(true);
    expect(model.accepts({ confidence: 0.3 })).toBe(false);
    expect(level1!.model.outOfFold.wilsonLower).toBeGreaterThanOrEqual(0.97);
    // Level 1 took everything at ≥ 0.2: level 2 saw the 60 below it.
    expect(level2).toMatchObject({ status: "too_few", decisions: 60, needed: 125 });
  });
});
