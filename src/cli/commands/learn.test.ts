/**
 * `deputy learn`: promotes a better model and writes the node's files; keeps the champion byte for byte when the
 * challenger is no better; bad input is one line, exit 2, nothing written; the same seed gives the same result.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LEARN_NODE, learnTraces, writeTraces } from "../../eval/learn/learn.fixture.js";
import { EXIT } from "../exit-codes.js";
import { cli } from "../../../test/cli-harness.js";

const root = mkdtempSync(join(tmpdir(), "deputy-learn-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const decisions = join(root, "decisions.jsonl");
writeTraces(decisions, learnTraces(240));
const more = join(root, "more.jsonl");
writeTraces(more, learnTraces(10, 5, 90_000));

/** Every file under a folder with its bytes. */
const snapshot = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));

describe("deputy learn", () => {
  it(
    "promotes a first model, then keeps it when the challenger is no better",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(root, "node-"));
      const model = join(dir, "route.model.json");
      const args = ["learn", "--node", LEARN_NODE, "--model", model, "--decisions", decisions];
      const first = await cli(args, true);
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/champion\s+none/);
      expect(first.stdout).toMatch(/^promote: no champion/m);
      expect(first.stdout).toContain("│"); // the curve
      expect(first.raw).toContain("learn: training"); // the progress line on a terminal
      expect(readdirSync(dir).sort()).toEqual(
        expect.arrayContaining(["route.model.json", "route.model.learn.jsonl"]),
      );
      const kept = snapshot(dir);

      // The same decisions again: the challenger is the champion retrained, not better: nothing changes but history.
      const again = await cli([...args, "--decisions", more, "--json"]);
      expect(again.code).toBe(0);
      const report = JSON.parse(again.stdout);
      expect(report).toMatchObject({ promoted: false, written: null, champion: { trainedOnKnown: true } });
      expect(report.counts.championSaw).toBe(0);
      const after = snapshot(dir);
      for (const f of Object.keys(kept).filter((f) => !f.endsWith(".learn.jsonl")))
        expect(after[f]).toBe(kept[f]);
      const history = after["route.model.learn.jsonl"]!.trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(history.map((h) => h.promoted)).toEqual([true, false]);
      expect(history[1].reason).toBe(report.reason);
    },
  );

  it(
    "gives the same result for the same seed, and --dry-run writes nothing",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(root, "seed-"));
      const model = join(dir, "route.model.json");
      const args = ["learn", "--node", LEARN_NODE, "--model", model, "--decisions", decisions, "--seed", "7"];
      const strip = (s: string) => ({ ...JSON.parse(s), seconds: 0 });
      const one = await cli([...args, "--json", "--dry-run", "--curve-points", "1"]);
      const svg = join(root, "curve.svg");
      const drawn = await cli([...args, "--dry-run", "--curve-points", "2", "--curve-svg", svg]);
      expect(drawn.code).toBe(0);
      expect(readFileSync(svg, "utf8")).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
      const two = await cli([...args, "--json", "--dry-run", "--curve-points", "1"]);
      expect(one.code).toBe(0);
      expect(strip(two.stdout)).toEqual(strip(one.stdout));
      expect(strip(one.stdout)).toMatchObject({ seed: 7, promoted: true, written: null, history: null });
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it("refuses bad input with one line and exit 2, writing nothing", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(root, "bad-"));
    const model = join(dir, "route.model.json");
    const notModel = join(dir, "not-a-model.json");
    writeFileSync(notModel, '{"format": "something else"}');
    const badLine = join(dir, "bad.jsonl");
    writeFileSync(badLine, "{not json\n");
    const trust = join(dir, "broken.trust.json");
    writeFileSync(trust, "[]");
    const other = join(dir, "other.jsonl");
    writeTraces(
      other,
      learnTraces(20).map((t) => ({ ...t, nodeId: "elsewhere" })),
    );
    const base = ["learn", "--node", LEARN_NODE, "--model", model];
    const cases: string[][] = [
      base,
      [...base, "--decisions", decisions, "--target-precision", "1.5"],
      [...base, "--decisions", decisions, "--seed", "x"],
      [...base, "--decisions", decisions, "--held-out-share", "0"],
      [...base, "--decisions", decisions, "--curve-points", "0"],
      [...base, "--decisions", join(dir, "missing.jsonl")],
      [...base, "--decisions", badLine],
      [...base, "--decisions", other],
      [...base, "--decisions", decisions, "--encoder", "onnx=x"],
      [...base, "--decisions", decisions, "--trust", trust],
      ["learn", "--node", LEARN_NODE, "--model", notModel, "--decisions", decisions],
      [...base, "--decisions", decisions, "--store", join(dir, "missing.db")],
      [...base, "--decisions", decisions, join(dir, "missing-traces.jsonl")],
    ];
    const before = snapshot(dir);
    for (const args of cases) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: EXIT.invalid });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it("refuses a champion of another node", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(root, "other-node-"));
    const model = join(dir, "route.model.json");
    expect(
      (
        await cli([
          "learn",
          "--node",
          LEARN_NODE,
          "--model",
          model,
          "--decisions",
          decisions,
          "--curve-points",
          "1",
        ])
      ).code,
    ).toBe(0);
    const renamed = join(dir, "renamed.jsonl");
    writeTraces(
      renamed,
      learnTraces(30).map((t) => ({ ...t, nodeId: "other" })),
    );
    const before = snapshot(dir);
    const r = await cli(["learn", "--node", "other", "--model", model, "--decisions", renamed]);
    expect(r.code).toBe(EXIT.invalid);
    expect(r.stderr).toContain(`a model of node "other"`);
    expect(snapshot(dir)).toEqual(before);
  });
});
