// `deputy distill --encoder` with a decoder model: the tiny random-weight GGUF of deputy-js/testing stands in for
// a catalogued real model (never real weights here).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModelFile } from "../../distill/model-file.js";
import { writeTinyModel } from "../../testing/index.js";
import { EXIT } from "../exit-codes.js";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-distill-encoder-"));
const tiny = join(dir, "tiny.gguf");
writeTinyModel(tiny, { seed: 1 });
// Every fourth trace of the example's training set: enough to train, quick to embed.
const traces = join(dir, "traces.jsonl");
const train = fileURLToPath(new URL("../../../examples/alert-triage/data/train.jsonl", import.meta.url));
writeFileSync(
  traces,
  readFileSync(train, "utf8")
    .split("\n")
    .filter((line, i) => line && i % 4 === 0)
    .join("\n") + "\n",
);

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy distill --encoder with a decoder model", () => {
  it(
    "trains on its hidden states and records name, checksum, dimension, pooling and input",
    { timeout: 120_000 },
    async () => {
      const out = join(dir, "decoder.model.json");
      const r = await cli([
        "distill",
        traces,
        "--node",
        "triage_items",
        "--out",
        out,
        "--encoder",
        `local=${tiny}`,
        "--json",
      ]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(EXIT.completed);
      const report = JSON.parse(r.stdout) as { encoder: Record<string, unknown> };
      const saved = loadModelFile(out).encoder!;
      expect(report.encoder).toMatchObject({
        dimension: 64,
        pooling: "last",
        input: "task",
        sha256: saved.sha256,
      });
      expect(saved).toMatchObject({ dimension: 64, pooling: "last", input: "task", path: tiny });
    },
  );

  it("refuses a name that is no catalogued model: one line, exit 2, nothing written", async () => {
    const out = join(dir, "never.model.json");
    const r = await cli([
      "distill",
      traces,
      "--node",
      "triage_items",
      "--out",
      out,
      "--encoder",
      "local=gpt-17",
    ]);
    expect(r.code).toBe(EXIT.invalid);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--encoder/);
    expect(existsSync(out)).toBe(false);
  });
});
