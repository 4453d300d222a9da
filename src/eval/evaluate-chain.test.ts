import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { readDecisionSuite } from "./decision-suite.js";
import { FIRST, SECOND, writeDecisionFixture } from "./decisions.fixture.js";
import { evaluateChain } from "./evaluate-chain.js";

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
