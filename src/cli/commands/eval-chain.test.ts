import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadModelFile, saveModelFile } from "../../distill/model-file.js";
import { trustFileBeside } from "../../distill/register-spec.js";
import { trainDistilled } from "../../distill/train-distilled.js";
import { TrustModel, type TrustModelData } from "../../distill/trust-model.js";
import { loadTrustModel, saveTrustModel } from "../../distill/trust-model-file.js";
import { DECISIONS, writeDecisionFixture } from "../../eval/decisions.fixture.js";
import { LEARN_NODE, learnExamples, learnTraces, writeTraces } from "../../eval/learn/learn.fixture.js";
import { EXIT } from "../exit-codes.js";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-eval-chain-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const files = writeDecisionFixture(dir);
const example = (file: string) =>
  fileURLToPath(new URL(`../../../examples/alert-triage/${file}`, import.meta.url));

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const chain = [
  "--delegate",
  `scripted=${files.first},name=first@0.8`,
  "--delegate",
  `scripted=${files.second},name=second@0.6`,
];

describe("deputy eval on decision records", () => {
  it("runs a chain of levels and prints each level's share, precision, exact accuracy and the chain's automation", async () => {
    const r = await cli(["eval", "--suite", files.decisions, ...chain]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(EXIT.completed);
    expect(r.stdout).toMatch(/^6 decisions from .*decisions\.jsonl \(traces left out: 1 notLabelled\)/);
    const rows = r.stdout.split("\n");
    expect(rows.find((l) => l.startsWith("1 first"))).toMatch(
      /^1 first\s+0\.8\s+6\s+3\s+50\.0%\s+33\.3%\s+\[6\.1%, 79\.2%\]\s+50\.0%/,
    );
    expect(rows.find((l) => l.startsWith("2 second"))).toMatch(
      /^2 second\s+0\.6\s+3\s+2\s+33\.3%\s+50\.0%\s+\[9\.5%, 90\.5%\]\s+66\.7%/,
    );
    expect(r.stdout).toContain(
      "at the gate: 5 of 6 decided (83.3%), precision 40.0% [11.8%, 76.9%]; 1 passed on to a person",
    );
  });

  it("--json gives every number, --compare a second chain on the same records, --free-text the stated rule", async () => {
    const r = await cli([
      "eval",
      "--suite",
      files.decisions,
      ...chain,
      "--compare",
      `scripted=${files.first},name=alone`,
      "--min-confidence",
      "0.95",
      "--free-text",
      "summary",
      "--json",
    ]);
    expect(r.code).toBe(EXIT.completed);
    const out = JSON.parse(r.stdout) as Record<string, any>;
    expect(Object.keys(out)).toEqual(["format", "files", "records", "skipped", "freeText", "chains"]);
    expect(out).toMatchObject({
      format: "decisions",
      records: 6,
      freeText: { names: ["summary"], minOverlap: 0 },
    });
    const [chained, compare] = out.chains;
    expect(Object.keys(chained.levels[0]).sort()).toEqual(
      [
        "asked",
        "correct",
        "decided",
        "decidedShare",
        "delegate",
        "exact",
        "exactAccuracy",
        "latencyMs",
        "minConfidence",
        "precision",
        "precisionInterval",
        "spec",
        "verdicts",
      ].sort(),
    );
    expect(chained.levels.map((l: any) => [l.minConfidence, l.decided, l.correct])).toEqual([
      [0.8, 3, 2],
      [0.6, 2, 1],
    ]);
    expect(chained.chain).toMatchObject({ decided: 5, correct: 3, passedOn: 1, precision: 0.6 });
    // The compared chain has no @T: --min-confidence 0.95 is its gate (0.95 and 0.99 pass).
    expect(compare.specs).toEqual([`scripted=${files.first},name=alone`]);
    expect(chained.specs).toEqual([chain[1], chain[3]]);
    expect(compare.levels[0]).toMatchObject({ minConfidence: 0.95, asked: 6, decided: 2, correct: 2 });
    expect(compare.chain.precisionInterval[0]).toBeCloseTo(0.3424, 4);
  });

  it("measures a distilled model trained with deputy distill at its recommended threshold, then a second level", async () => {
    const model = join(dir, "triage.model.json");
    const trained = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--holdout",
      example("data/heldout.jsonl"),
      "--out",
      model,
    ]);
    expect(trained.code).toBe(0);
    // A second level that declines everything it is asked: the person gets what the model passes on.
    const declines = join(dir, "declines.jsonl");
    writeFileSync(
      declines,
      Array.from({ length: 90 }, () =>
        JSON.stringify({ node: "triage_items", proposal: { name: null } }),
      ).join("\n"),
    );
    const r = await cli([
      "eval",
      "--suite",
      example("data/escalations.jsonl"),
      "--delegate",
      `distilled=${model}`,
      "--delegate",
      `scripted=${declines}`,
      "--free-text",
      "summary,title,reason",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as Record<string, any>;
    const [distilled, second] = out.chains[0].levels;
    expect(distilled.minConfidence).toBe(loadModelFile(model).recommendedMinConfidence);
    expect(distilled.asked).toBe(90);
    expect(second.asked).toBe(90 - distilled.decided);
    expect(second.decided).toBe(0);
    expect(out.chains[0].chain.decided).toBe(distilled.decided);
  }, 120_000);

  it("--trust fits each level from the decisions and, with too few, says how many it needs and keeps the threshold", async () => {
    const text = await cli(["eval", "--suite", files.decisions, ...chain, "--trust"]);
    expect(text.code).toBe(EXIT.completed);
    // Level 1 proposed 4 readable calls, level 2 three: far from the 125 a 97 % bound needs.
    expect(text.stdout).toContain(
      "trust 1: 4 decisions; a precision bound of 0.97 needs at least 125 — keeps min_confidence 0.8",
    );
    expect(text.stdout).toContain("trust 2: 3 decisions;");
    const json = await cli([
      "eval",
      "--suite",
      files.decisions,
      ...chain,
      "--trust",
      "--target-precision",
      "0.9",
      "--json",
    ]);
    const levels = (JSON.parse(json.stdout) as Record<string, any>).chains[0].levels;
    expect(levels[0].trust).toMatchObject({ status: "too_few", decisions: 4, needed: 35 });
    const bad = await cli([
      "eval",
      "--suite",
      files.decisions,
      ...chain,
      "--trust",
      "--target-precision",
      "1",
    ]);
    expect(bad.code).toBe(EXIT.invalid);
    expect(bad.stderr).toMatch(/--target-precision/);
  });

  it("--trust-out writes the model of each level it could fit, which loads and judges as printed", async () => {
    // 300 decisions; the level is right when its confidence is at least 0.5.
    const decisions = join(dir, "many.jsonl");
    const answers = join(dir, "many-answers.jsonl");
    const ticket = (item: number, priority: string) => ({ alert_id: `A${item}`, priority });
    writeFileSync(
      decisions,
      Array.from({ length: 300 }, (_, i) =>
        JSON.stringify({
          ...DECISIONS[1],
          item: i,
          instruction: `alert ${i}`,
          finalCall: { name: "ticket", arguments: ticket(i, "P3") },
        }),
      ).join("\n"),
    );
    writeFileSync(
      answers,
      Array.from({ length: 300 }, (_, i) => {
        const confidence = ((i * 37) % 100) / 100;
        const args = ticket(i, confidence >= 0.5 ? "P3" : "P2");
        return JSON.stringify({
          node: "triage",
          item: i,
          proposal: { name: "ticket", arguments: args, confidence },
        });
      }).join("\n"),
    );
    const out = join(dir, "trust");
    const r = await cli([
      "eval",
      "--suite",
      decisions,
      "--delegate",
      `scripted=${answers}@0.2`,
      "--trust-out",
      out,
    ]);
    expect(r.code).toBe(EXIT.completed);
    expect(r.stdout).toMatch(
      /trust 1: from 300 calls \(confidence\): accept p ≥ 0\.\d{3}, out of fold \d+ accepted/,
    );
    expect(r.stderr).toContain(`written to ${join(out, "level-1.trust.json")}`);
    const model = new TrustModel(loadTrustModel(join(out, "level-1.trust.json")));
    expect(model.accepts({ confidence: 0.9 })).toBe(true);
    expect(model.accepts({ confidence: 0.3 })).toBe(false);
  });

  it("refuses bad input in one line with exit 2 and creates nothing", async () => {
    const neither = join(dir, "neither.jsonl");
    writeFileSync(neither, JSON.stringify({ outcome: "proposed", correct: true }) + "\n");
    const before = readdirSync(dir).sort();
    const cases: [string[], RegExp][] = [
      [["--suite", neither, ...chain], /neither\.jsonl:1` to be a decision record/],
      [["--suite", files.decisions, "--delegate", `scripted=${files.first}@1.5`], /@ threshold.*0 to 1/],
      [["--suite", files.decisions], /--delegate.*at least one/],
      [["--suite", files.decisions, ...chain, "--records", join(dir, "r.jsonl")], /--records.*BFCL/],
      [["--suite", files.decisions, ...chain, "--free-text-overlap", "0.5"], /--free-text-overlap/],
      [
        ["--suite", files.decisions, ...chain, "--free-text", "summary", "--free-text-overlap", "2"],
        /0 to 1/,
      ],
      [["--suite", files.decisions, ...chain, "--min-confidence", "x"], /--min-confidence/],
      [["--suite", neither, ...chain, "--trust-out", join(dir, "never")], /neither\.jsonl:1/],
      [["--suite", files.decisions, ...chain, "--node", "nobody"], /at least one decision/],
      [["--suite", join(dir, "missing.jsonl"), ...chain], /--suite/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(["eval", ...args]);
      expect(r.code, args.join(" ")).toBe(EXIT.invalid);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("keeps a BFCL suite to one backend and its own flags", async () => {
    const bfcl = join(dir, "BFCL_v4_simple_python.jsonl");
    writeFileSync(bfcl, JSON.stringify({ id: "simple_0", question: [[]], function: [] }) + "\n");
    const two = await cli(["eval", "--suite", bfcl, ...chain]);
    expect(two.code).toBe(EXIT.invalid);
    expect(two.stderr).toMatch(/one backend for a BFCL suite/);
    const compare = await cli([
      "eval",
      "--suite",
      bfcl,
      "--delegate",
      "scripted=x",
      "--compare",
      "scripted=y",
    ]);
    expect(compare.stderr).toMatch(/--compare.*decision records/);
  });
});

describe("deputy eval with a level's trust model", () => {
  // Two distilled models of one node, trained in the test on different decisions, and 60 decisions to measure.
  const model = (name: string, seed: number) => {
    const path = join(dir, name);
    const trained = trainDistilled(learnExamples(150, seed), { node: LEARN_NODE, heldOutShare: 0 });
    saveModelFile(path, trained.model);
    return path;
  };
  const route = model("route.model.json", 1);
  const other = model("other.model.json", 2);
  const suite = join(dir, "route-decisions.jsonl");
  writeTraces(suite, learnTraces(60, 5, 50_000));
  /** A trust model whose probability is the same for every call: sigmoid(bias), threshold 0.5. */
  const constant = (bias: number): TrustModelData => ({
    format: "deputy-trust-model",
    version: 1,
    signals: ["confidence"],
    calibrator: { method: "logistic", inputs: ["confidence"], mean: [0], scale: [1], weights: [0], bias },
    threshold: 0.5,
    targetPrecision: 0.95,
    decisions: 200,
    outOfFold: { folds: 5, accepted: 100, coverage: 0.5, precision: 0.99, wilsonLower: 0.95, auroc: null },
  });
  const level = async (spec: string) => {
    const r = await cli(["eval", "--suite", suite, "--delegate", spec, "--json"]);
    expect(r.stderr).toBe("");
    return (JSON.parse(r.stdout) as Record<string, any>).chains[0].levels[0];
  };

  it("a trust file beside a distilled model gates its level: the table and --json say so, the counts are under it", async () => {
    const plain = await level(`distilled=${route},trust=false`);
    expect(plain.trustGate).toBeUndefined();
    const calls = (plain.verdicts.accepted ?? 0) + (plain.verdicts.low_confidence ?? 0);
    expect(plain.verdicts.low_confidence).toBeGreaterThan(0);
    // Beside the model (written before the record existed: no fittedFor), a model that trusts every call.
    const beside = trustFileBeside(route);
    saveTrustModel(beside, constant(10));
    const trusted = await level(`distilled=${route}`);
    expect(trusted.trustGate).toEqual({ threshold: 0.5, file: beside });
    // Every call that passed the other checks is decided, below the raw min_confidence too (the floor is on p).
    expect(trusted).toMatchObject({ minConfidence: plain.minConfidence, decided: calls, asked: 60 });
    expect(trusted.exact).toBe(plain.exact);
    // One that trusts none decides nothing.
    const doubting = join(dir, "doubting.trust.json");
    saveTrustModel(doubting, constant(-10));
    const none = await level(`distilled=${route},trust=${doubting}`);
    expect(none).toMatchObject({ decided: 0, trustGate: { threshold: 0.5, file: doubting } });
    expect(none.verdicts.low_confidence).toBe(calls);
    const text = await cli(["eval", "--suite", suite, "--delegate", `distilled=${route}`]);
    // The table shows a threshold to three decimals.
    const floor = String(Math.round(plain.minConfidence * 1000) / 1000);
    const rows = text.stdout.split("\n");
    expect(rows.find((l) => l.startsWith("level "))).toMatch(/^level\s+min_confidence\s+trust p ≥\s+asked/);
    expect(rows.find((l) => l.startsWith("1 "))).toMatch(
      new RegExp(`^1 \\S+\\s+${floor.replace(".", "\\.")}\\s+0\\.500\\s+60\\s+${calls}\\s`),
    );
    expect(text.stdout).toContain(
      `level 1 gated by trust (${beside}): trusted probability ≥ 0.500 and ≥ min_confidence ${floor}`,
    );
    rmSync(beside);
  });

  it("--trust-out records the model it was fitted for; another model refuses the file before anything runs", async () => {
    const out = join(dir, "route-trust");
    const fit = await cli([
      "eval",
      "--suite",
      suite,
      "--delegate",
      `distilled=${route}`,
      "--trust-out",
      out,
      "--target-precision",
      "0.9",
    ]);
    expect(fit.code).toBe(EXIT.completed);
    const file = join(out, "level-1.trust.json");
    const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
    expect(loadTrustModel(file).fittedFor).toEqual({
      kind: "distilled",
      spec: `distilled=${route}`,
      file: route,
      sha256: sha256(route),
    });
    expect((await level(`distilled=${route},trust=${file}`)).trustGate.file).toBe(file);
    const before = readdirSync(dir).sort();
    for (const args of [
      ["--delegate", `distilled=${other},trust=${file}`],
      // The mismatch in a compared chain: the first chain does not run either.
      ["--delegate", `distilled=${route}`, "--compare", `distilled=${other},trust=${file}`],
    ]) {
      const r = await cli(["eval", "--suite", suite, ...args, "--trust-out", join(dir, "never")]);
      expect(r.code).toBe(EXIT.invalid);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`${file} is not valid: it was fitted for ${route} (sha256 `);
      expect(r.stderr).toContain(`not for ${other} (sha256 `);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
