// `deputy learn --encoder local=NAME`: the tiny random-weight GGUFs of deputy-js/testing stand in for a catalogued
// real model (never real weights here). Training, the estimate, the bound, the history's record of the encoder,
// byte-identical files from the same seed, a champion measured with its own encoder file, and --tune.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadModelFile } from "../../distill/model-file.js";
import { LEARN_NODE, learnTraces, writeTraces } from "../../eval/learn/learn.fixture.js";
import { readLearnHistory } from "../../eval/learn/node-files.js";
import { writeTinyModel } from "../../testing/index.js";
import { EXIT } from "../exit-codes.js";
import { cli } from "../../../test/cli-harness.js";

const root = mkdtempSync(join(tmpdir(), "deputy-learn-encoder-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.SOURCE_DATE_EPOCH;
});
const tiny = join(root, "tiny.gguf");
writeTinyModel(tiny, { seed: 1 });
const otherTiny = join(root, "other-tiny.gguf");
writeTinyModel(otherTiny, { seed: 2 });
const decisions = join(root, "decisions.jsonl");
writeTraces(decisions, learnTraces(120));

const learn = (model: string, encoder: string, ...more: string[]) => [
  "learn",
  "--node",
  LEARN_NODE,
  "--model",
  model,
  "--decisions",
  decisions,
  "--curve-points",
  "2",
  "--encoder",
  encoder,
  ...more,
];

describe("deputy learn --encoder with a decoder model", () => {
  it(
    "states the texts and the time first, trains on the hidden states and records the encoder in the history",
    { timeout: 120_000 },
    async () => {
      const model = join(mkdtempSync(join(root, "node-")), "route.model.json");
      const r = await cli(learn(model, `local=${tiny}`));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(EXIT.completed);
      expect(r.stdout.split("\n")[0]).toMatch(
        /^embedding \d+ text\(s\) with .+: about .+ \([\d.]+ s a text, timed on 8 after 2 to warm up\)$/,
      );
      const saved = loadModelFile(model).encoder!;
      expect(saved).toMatchObject({ dimension: 64, pooling: "last", input: "task" });
      const [entry] = readLearnHistory(model.replace(/\.json$/, ".learn.jsonl"));
      expect(entry!.promoted).toBe(true);
      expect(entry!.encoder).toEqual({ name: saved.name, sha256: saved.sha256 });
      expect(r.stdout).toContain(`sha256 ${saved.sha256.slice(0, 12)}`);
    },
  );

  it(
    "the same decisions and seed write byte-identical model files (SOURCE_DATE_EPOCH pins createdAt)",
    { timeout: 120_000 },
    async () => {
      process.env.SOURCE_DATE_EPOCH = "1798761600";
      const files = [1, 2].map(() => join(mkdtempSync(join(root, "seed-")), "route.model.json"));
      for (const model of files) expect((await cli(learn(model, `local=${tiny}`))).code).toBe(EXIT.completed);
      expect(readFileSync(files[0]!).equals(readFileSync(files[1]!))).toBe(true);
    },
  );

  it(
    "measures a champion trained with another encoder file with its own; refuses an estimate over --max-minutes: one line, exit 2, nothing written",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(root, "refuse-"));
      const model = join(dir, "route.model.json");
      const first = await cli(learn(model, `local=${tiny}`, "--dry-run", "--json"));
      expect((await cli(learn(model, `local=${tiny}`))).code).toBe(EXIT.completed);
      const challenger = (JSON.parse(first.stdout) as { challenger: { share: number } }).challenger;
      // The champion is the model the first turn trained (same seed); another encoder cannot read it, its own can.
      const other = await cli(learn(model, `local=${otherTiny}`, "--dry-run", "--json"));
      expect(other.stderr).toBe("");
      expect(other.code).toBe(EXIT.completed);
      const report = JSON.parse(other.stdout) as { champion: { share: number }; encoder: { sha256: string } };
      expect(report.champion.share).toBe(challenger.share);
      expect(report.encoder.sha256).not.toBe(loadModelFile(model).encoder!.sha256);
      const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      const slow = await cli(learn(model, `local=${tiny}`, "--max-minutes", "0.000001"));
      expect(slow.code).toBe(EXIT.invalid);
      expect(slow.stderr.trim().split("\n")).toHaveLength(1);
      expect(slow.stderr).toMatch(
        /would take longer than --max-minutes 0\.000001: about .+; nothing was written/,
      );
      const after = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      expect(after).toEqual(before);
      // A first turn over the bound writes no model and no history either.
      const fresh = join(mkdtempSync(join(root, "fresh-")), "route.model.json");
      expect((await cli(learn(fresh, `local=${tiny}`, "--max-minutes", "0.000001"))).code).toBe(EXIT.invalid);
      expect(existsSync(fresh)).toBe(false);
    },
  );

  it(
    "without --encoder, a champion trained with one uses the encoder file it recorded; moved away, one line, exit 2",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(root, "recorded-"));
      const own = join(dir, "encoder.gguf");
      writeTinyModel(own, { seed: 1 });
      const model = join(dir, "route.model.json");
      expect((await cli(learn(model, `local=${own}`))).code).toBe(EXIT.completed);
      const again = learn(model, "x").slice(0, -2); // the same command without --encoder
      const r = await cli(again);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(EXIT.completed);
      const history = readLearnHistory(model.replace(/\.json$/, ".learn.jsonl"));
      expect(history).toHaveLength(2);
      expect(history[1]!.encoder).toEqual(history[0]!.encoder);
      renameSync(own, join(dir, "moved.gguf"));
      const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      const gone = await cli(again);
      expect(gone.code).toBe(EXIT.invalid);
      expect(gone.stderr.trim().split("\n")).toHaveLength(1);
      expect(gone.stderr).toContain(`no longer at ${own}`);
      const after = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      expect(after).toEqual(before);
    },
  );

  it(
    "--tune: tunes a reader on the training decisions and trains the challenger on it; the champion is measured with its own; a reader not taken is not kept",
    { timeout: 600_000 },
    async () => {
      const dir = mkdtempSync(join(root, "tune-"));
      const model = join(dir, "route.model.json");
      const r = await cli(learn(model, `local=${tiny}`, "--tune"));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(EXIT.completed);
      expect(r.stdout.split("\n")[0]).toMatch(
        /^tuning the reader on \d+ decision\(s\) and trace\(s\), 3 labels, \d+ steps: about .+ \([\d.]+ s a step, timed on the first 2\)$/,
      );
      const saved = loadModelFile(model).encoder!;
      const reader = /route\.model\.reader-([0-9a-f]{12})\.gguf$/.exec(saved.path ?? "");
      expect(reader).not.toBeNull();
      expect(saved.sha256.startsWith(reader![1]!)).toBe(true);
      expect(existsSync(saved.path!)).toBe(true);
      expect(existsSync(saved.path!.replace(/\.gguf$/, ".json"))).toBe(true);
      expect(r.stdout).toContain(`reader: ${saved.path}`);
      // the reader's head decides the class only where it beats the level's own heads on the held-out decisions
      // (a few steps on a random-weight model teach it nothing: the own heads keep it here)
      expect(r.stdout).toMatch(
        /^class decision: the level's own heads \(head [\d.]+ % at .+, own heads [\d.]+ % at .+ of the held-out decisions: .+\)$/m,
      );
      expect(loadModelFile(model).readerHead).toBeUndefined();

      // Another split tunes another reader; the champion is measured with its own; --dry-run keeps nothing.
      const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      const other = await cli(learn(model, `local=${tiny}`, "--tune", "--seed", "2", "--dry-run", "--json"));
      expect(other.stderr).toBe("");
      expect(other.code).toBe(EXIT.completed);
      const report = JSON.parse(other.stdout) as {
        champion: unknown;
        encoder: { sha256: string };
        tuned: { kept: boolean; path: string | null; sha256: string };
      };
      expect(report.champion).not.toBeNull();
      expect(report.tuned).toMatchObject({ kept: false, path: null });
      expect(report.encoder.sha256).toBe(report.tuned.sha256);
      expect(report.tuned.sha256).not.toBe(saved.sha256);
      const after = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
      expect(after).toEqual(before);

      // The first turn's decisions and seed again tune the champion's own bytes: its reader stays, whatever the verdict.
      const same = await cli(learn(model, `local=${tiny}`, "--tune", "--json"));
      expect(same.code).toBe(EXIT.completed);
      expect((JSON.parse(same.stdout) as { tuned: { sha256: string } }).tuned.sha256).toBe(saved.sha256);
      expect(existsSync(saved.path!)).toBe(true);
      expect(existsSync(loadModelFile(model).encoder!.path!)).toBe(true);

      const bare = await cli(learn(model, "x", "--tune").slice(0, -3).concat("--tune"));
      expect(bare.code).toBe(EXIT.invalid);
      expect(bare.stderr.trim().split("\n")).toHaveLength(1);
      expect(bare.stderr).toMatch(/--encoder.*the model --tune starts from/);
    },
  );
});
