// `deputy distill --encoder` with a decoder model: the tiny random-weight GGUF of deputy-js/testing stands in for
// a catalogued real model (never real weights here).
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadModelFile } from "../../distill/model-file.js";
import { writeTinyModel } from "../../testing/index.js";
import { EXIT } from "../exit-codes.js";
import { cli } from "../../../test/cli-harness.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-distill-encoder-"));
const tiny = join(dir, "tiny.gguf");
writeTinyModel(tiny, { seed: 1 });
// Another file of the same shape and name: other weights, another sha256.
const otherTiny = join(dir, "other-tiny.gguf");
writeTinyModel(otherTiny, { seed: 2 });
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

const distill = (out: string, encoder: string, ...more: string[]) => [
  "distill",
  traces,
  "--node",
  "triage_items",
  "--out",
  out,
  "--encoder",
  encoder,
  ...more,
];

afterEach(() => {
  delete process.env.SOURCE_DATE_EPOCH;
});

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

  it(
    "states how many texts it will embed and about how long before it starts, with a progress bar on a terminal",
    { timeout: 120_000 },
    async () => {
      const out = join(dir, "estimate.model.json");
      const r = await cli(distill(out, `local=${tiny}`), true);
      expect(r.code).toBe(EXIT.completed);
      const lines = r.stdout.split("\n");
      // The first line, written before any training: the count, the estimate and what it was timed on.
      expect(lines[0]).toMatch(
        /^embedding \d+ text\(s\) with .+: about \d.* \([\d.]+ s a text, timed on 8 after 2 to warm up\)$/,
      );
      expect(r.raw).toMatch(/embedding \[[█░]+\] \d+\/\d+ · .+ left/);
      const json = await cli(distill(join(dir, "estimate-json.model.json"), `local=${tiny}`, "--json"));
      const report = JSON.parse(json.stdout) as { embedding: { texts: number; estimatedSeconds: number } };
      expect(report.embedding.texts).toBe(Number(/^embedding (\d+)/.exec(lines[0]!)![1]));
    },
  );

  it("--max-minutes refuses to start when the estimate is longer: one line, exit 2, nothing written", async () => {
    const out = join(dir, "too-long.model.json");
    // 0.000001 minutes is 60 µs: eight embeddings take longer than that on any machine.
    const r = await cli(distill(out, `local=${tiny}`, "--max-minutes", "0.000001"));
    expect(r.code).toBe(EXIT.invalid);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(
      /^deputy: embedding \d+ text\(s\) with .+ would take longer than --max-minutes 0\.000001: about .+; nothing was written$/,
    );
    expect(r.stdout).toBe("");
    expect(existsSync(out)).toBe(false);
    const bad = await cli(distill(out, `local=${tiny}`, "--max-minutes", "soon"));
    expect(bad.code).toBe(EXIT.invalid);
    expect(bad.stderr).toMatch(/--max-minutes.*positive number/);
  });

  it(
    "the same inputs and seed write a byte-identical model file (SOURCE_DATE_EPOCH pins createdAt)",
    { timeout: 120_000 },
    async () => {
      process.env.SOURCE_DATE_EPOCH = "1798761600";
      const a = join(dir, "seed-a.model.json");
      const b = join(dir, "seed-b.model.json");
      const c = join(dir, "seed-c.model.json");
      for (const [out, seed] of [
        [a, "7"],
        [b, "7"],
        [c, "8"],
      ] as const)
        expect((await cli(distill(out, `local=${tiny}`, "--seed", seed))).code).toBe(EXIT.completed);
      expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
      expect(readFileSync(a).equals(readFileSync(c))).toBe(false); // the seed matters
      expect(loadModelFile(a).createdAt).toBe("2027-01-01T00:00:00.000Z");
    },
  );

  it(
    "a model refuses an encoder file whose sha256 differs from the one it records: one line, exit 2",
    { timeout: 120_000 },
    async () => {
      const encoderFile = join(dir, "encoder.gguf");
      copyFileSync(tiny, encoderFile);
      const out = join(dir, "versioned.model.json");
      expect((await cli(distill(out, `local=${encoderFile}`))).code).toBe(EXIT.completed);
      const recorded = loadModelFile(out).encoder!.sha256;
      const suite = ["eval", "--suite", traces, "--node", "triage_items", "--limit", "2"];
      expect((await cli([...suite, "--delegate", `distilled=${out}`])).code).toBe(EXIT.completed);
      const refused = async (delegate: string) => {
        const r = await cli([...suite, "--delegate", delegate]);
        expect(r.code).toBe(EXIT.invalid);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toMatch(
          /and the encoder given do not match: it was trained with the encoder .*retrain/,
        );
        expect(r.stderr).toContain(recorded.slice(0, 12));
        expect(r.stderr).toMatch(/DISTILLED_ENCODER_MISMATCH/);
      };
      // Another file given in its place…
      await refused(`distilled=${out},encoder=gguf=${otherTiny}`);
      // …or the file at the recorded path replaced by another (a new version of the model under the same name).
      copyFileSync(otherTiny, encoderFile);
      await refused(`distilled=${out}`);
    },
  );
});
