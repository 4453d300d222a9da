import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { writeTinyModel } from "../../src/testing/index.js";
import { BFCL_DIR } from "../bfcl-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-eval-"));
const model = join(dir, "tiny.gguf");
writeTinyModel(model, { seed: 3 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTTY: false });
  return { code, out, err };
}

describe("deputy eval with a real backend", () => {
  it("prints AST-match accuracy per BFCL category for local=MODEL", async () => {
    const { code, out, err } = await cli([
      "eval",
      "--delegate",
      `local=${model},pool=1,threads=1`,
      "--suite",
      BFCL_DIR,
      "--limit",
      "4",
      "--json",
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(out) as {
      delegate: string;
      results: { category: string; cases: number; correct: number; accuracy: number | null }[];
    };
    expect(report.delegate).toBe("local");
    expect(report.results.map((r) => r.category).sort()).toEqual([
      "irrelevance",
      "live_irrelevance",
      "multiple",
      "simple",
    ]);
    for (const r of report.results) {
      expect(r.cases).toBeGreaterThan(0);
      expect(r.correct).toBeLessThanOrEqual(r.cases);
      if (r.accuracy !== null) expect(r.accuracy).toBeGreaterThanOrEqual(0);
    }
  }, 300_000);

  it("fails clearly on an unknown spec or a missing suite", async () => {
    const bad = await cli(["eval", "--delegate", "nope=1", "--suite", BFCL_DIR]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/local=MODEL\.gguf/);
    const missing = await cli(["eval", "--delegate", `local=${model}`, "--suite", join(dir, "none")]);
    expect(missing.code).toBe(2);
  });
});
