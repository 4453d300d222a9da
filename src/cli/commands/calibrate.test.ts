import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { calibratedConfidence, readDelegateCalibration } from "../../confidence/delegate-calibration.js";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-calibrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTTY: false });
  return { code, out, err };
}

// Labelled proposals where the mean token probability separates right from wrong and the choice confidence
// does not (what a small model that never declines looks like).
const records = Array.from({ length: 60 }, (_, i) => {
  const correct = i % 3 !== 0;
  return {
    outcome: "proposed",
    correct,
    confidence: 0.9 + ((i * 7) % 10) / 101,
    meanTokenProbability: correct ? 0.9 + (i % 9) / 100 : 0.7 + (i % 13) / 100,
  };
});

describe("deputy calibrate", () => {
  it("fits a calibration that ranks right calls above wrong ones and recommends a threshold", async () => {
    const input = join(dir, "records.jsonl");
    writeFileSync(input, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir, "cal.json");
    const result = await cli(["calibrate", "--records", input, "--model", "m.gguf", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/fitted on 60 proposals/);
    expect(result.out).toMatch(/AUROC 1\.000/);
    const file = readDelegateCalibration(out);
    expect(file.recommendedMinConfidence).toBeLessThan(1);
    expect(file.crossValidated.precision).toBeGreaterThanOrEqual(0.95);
    const low = calibratedConfidence(file, { confidence: 0.95, meanTokenProbability: 0.72 })!;
    const high = calibratedConfidence(file, { confidence: 0.95, meanTokenProbability: 0.97 })!;
    expect(high).toBeGreaterThan(file.recommendedMinConfidence);
    expect(low).toBeLessThan(file.recommendedMinConfidence);
    expect(calibratedConfidence(file, { confidence: null })).toBeNull();
  });

  it("--with-context also reads the number of tools and the verbatim share of the values", async () => {
    // Scores that say nothing, and made-up values (verbatimShare 0) that are always wrong.
    const withContext = Array.from({ length: 60 }, (_, i) => ({
      outcome: "proposed",
      correct: i % 3 !== 0,
      confidence: 0.9 + ((i * 7) % 10) / 101,
      meanTokenProbability: 0.8 + ((i * 5) % 10) / 101,
      tools: 1 + (i % 4),
      verbatimShare: i % 3 !== 0 ? 1 : 0,
    }));
    const input = join(dir, "context.jsonl");
    writeFileSync(input, withContext.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir, "context.json");
    const result = await cli([
      "calibrate",
      "--records",
      input,
      "--model",
      "m",
      "--out",
      out,
      "--with-context",
    ]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/AUROC 1\.000/);
    const file = readDelegateCalibration(out);
    expect(file.calibrator.inputs).toEqual(["choiceLogit", "meanTokenLogit", "logTools", "verbatimShare"]);
    const scores = { confidence: 0.95, meanTokenProbability: 0.85 };
    const copied = calibratedConfidence(file, scores, { tools: 2, verbatimShare: 1 })!;
    const madeUp = calibratedConfidence(file, scores, { tools: 2, verbatimShare: 0 })!;
    expect(copied).toBeGreaterThan(madeUp);
    // Without the context a file that reads it leaves the proposal unscored.
    expect(calibratedConfidence(file, scores)).toBeNull();
    // Records without the context cannot be fitted with it: one line, exit 2, nothing written.
    const plain = join(dir, "plain-context.json");
    const missing = await cli([
      "calibrate",
      ...["--records", join(dir, "records.jsonl"), "--model", "m", "--out", plain, "--with-context"],
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/tools and verbatimShare/);
    expect(existsSync(plain)).toBe(false);
  });

  it("refuses records it cannot use with one line and exit 2, writing nothing", async () => {
    const out = join(dir, "none.json");
    const missing = await cli([
      "calibrate",
      "--records",
      join(dir, "nope.jsonl"),
      "--model",
      "m",
      "--out",
      out,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err.trim().split("\n")).toHaveLength(1);
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"confidence": 0.5}\n');
    expect((await cli(["calibrate", "--records", bad, "--model", "m", "--out", out])).code).toBe(2);
    const few = join(dir, "few.jsonl");
    writeFileSync(
      few,
      records
        .slice(0, 5)
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const tooFew = await cli(["calibrate", "--records", few, "--model", "m", "--out", out]);
    expect(tooFew.code).toBe(2);
    expect(tooFew.err).toMatch(/at least 10 scored proposals/);
    expect(existsSync(out)).toBe(false);
    writeFileSync(join(dir, "x.json"), '{"format":"other"}');
    expect(() => readDelegateCalibration(join(dir, "x.json"))).toThrow(/deputy-delegate-calibration/);
    expect(readFileSync(bad, "utf8")).toBe('{"confidence": 0.5}\n');
  });
});
