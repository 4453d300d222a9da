import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadModelFile } from "../../distill/model-file.js";
import { TrustModel } from "../../distill/trust-model.js";
import { loadTrustModel } from "../../distill/trust-model-file.js";
import { DECISIONS, writeDecisionFixture } from "../../eval/decisions.fixture.js";
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
