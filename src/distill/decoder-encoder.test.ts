// A decoder-only model as the distilled delegate's encoder (its own hidden states, last-token pooled), on the tiny
// random-weight GGUF that deputy-js/testing writes: never real weights here.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyModel } from "../testing/index.js";
import { DistilledModelError, InvalidOptionError } from "../errors/index.js";
import { alertTriageExamples, ALERT_TRIAGE_NODE } from "./alert-triage.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { taskText } from "./encoder-input.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import { measureModel } from "./measure-model.js";
import { loadModelFile, saveModelFile } from "./model-file.js";
import { parseEncoderSpec, type TextEncoder } from "./text-encoder.js";
import { trainDistilledWithEncoder } from "./train-with-encoder.js";
import type { TrainingExample } from "./training-examples.js";

const TIMEOUT = 120_000;
const dir = mkdtempSync(join(tmpdir(), "deputy-decoder-encoder-"));
const tiny = join(dir, "tiny.gguf");
const other = join(dir, "other.gguf");
const narrow = join(dir, "narrow.gguf");
writeTinyModel(tiny, { seed: 1 });
writeTinyModel(other, { seed: 2 });
writeTinyModel(narrow, { seed: 1, embedding: 32 });
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
const context = { runId: "r", nodeId: ALERT_TRIAGE_NODE };

/** `encoder`, keeping every text it is asked to embed. */
function spied(encoder: TextEncoder, seen: string[]): TextEncoder {
  return {
    info: encoder.info,
    embed: (texts) => {
      seen.push(...texts);
      return encoder.embed(texts);
    },
    close: async () => {},
  };
}

let encoder: GgufTextEncoder;
let examples: TrainingExample[];
beforeAll(async () => {
  encoder = await GgufTextEncoder.open(tiny);
  examples = alertTriageExamples("train").filter((_, i) => i % 8 === 0);
}, TIMEOUT);
afterAll(() => encoder?.close());

describe("a decoder model as the encoder (tiny random-weight GGUF)", () => {
  it("records its name, checksum, dimension and last-token pooling, and embeds to unit vectors", async () => {
    expect(encoder.info).toMatchObject({ kind: "gguf", dimension: 64, pooling: "last", path: tiny });
    expect(encoder.info.sha256).toBe(createHash("sha256").update(readFileSync(tiny)).digest("hex"));
    const [a, b, again] = await encoder.embed([
      "disk full on db-3",
      "weekly lunch moved",
      "disk full on db-3",
    ]);
    expect(a).toHaveLength(64);
    expect(Math.abs(dot(a!, a!) - 1)).toBeLessThan(1e-4);
    expect(dot(a!, b!)).toBeLessThan(0.999);
    expect(again).toEqual(a);
  });

  it(
    "trains heads on the rendered task, records it in the model file, and the delegate embeds the same text",
    { timeout: TIMEOUT },
    async () => {
      const trainedOn: string[] = [];
      const r = await trainDistilledWithEncoder(
        examples,
        { node: ALERT_TRIAGE_NODE, heldOutShare: 0.25, seed: 3 },
        spied(encoder, trainedOn),
      );
      expect(r.model.encoder).toMatchObject({ dimension: 64, pooling: "last", input: "task" });
      const e = examples[0]!;
      expect(trainedOn).toContain(taskText(e.instruction, e.facts, r.model.encoder!.prefix));
      expect(trainedOn.every((t) => t.endsWith("\nAction:"))).toBe(true);

      const file = join(dir, "decoder.model.json");
      saveModelFile(file, r.model);
      expect(loadModelFile(file).encoder).toEqual(r.model.encoder);

      const proposedOn: string[] = [];
      const delegate = await DistilledDelegate.open({ model: file, encoder: spied(encoder, proposedOn) });
      const measured = await measureModel(r.model, examples.slice(0, 5), encoder);
      for (const [i, x] of examples.slice(0, 5).entries()) {
        const p = await delegate.propose({
          instruction: x.instruction,
          facts: x.facts,
          tools: x.tools,
          context,
        });
        expect(p.confidence).toBeCloseTo(measured.scored[i]!.score, 6);
      }
      expect(proposedOn).toContain(taskText(e.instruction, e.facts, r.model.encoder!.prefix));
      await delegate.close();
    },
  );

  it(
    "refuses another decoder in its place: other weights, or another dimension",
    { timeout: TIMEOUT },
    async () => {
      const r = await trainDistilledWithEncoder(
        examples,
        { node: ALERT_TRIAGE_NODE, heldOutShare: 0.25, seed: 3, crossCheck: false },
        encoder,
      );
      const file = join(dir, "refuse.model.json");
      saveModelFile(file, r.model);
      for (const path of [other, narrow]) {
        const refused = await DistilledDelegate.open({ model: file, encoder: `gguf=${path}` }).then(
          (d) => d.close().then(() => undefined),
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(DistilledModelError);
        expect((refused as DistilledModelError).code).toBe("DISTILLED_ENCODER_MISMATCH");
      }
      const same = await DistilledDelegate.open({ model: file, encoder: `local=${tiny}` });
      await same.close();
    },
  );

  it("--encoder local=NAME takes a catalogued name or a file, and refuses anything else", () => {
    expect(parseEncoderSpec(`local=${tiny}`)).toEqual({ kind: "gguf", path: tiny });
    expect(() => parseEncoderSpec("local=no-such-model")).toThrow(InvalidOptionError);
    expect(() => parseEncoderSpec("local=")).toThrow(InvalidOptionError);
    const saved = process.env.DEPUTY_CACHE;
    process.env.DEPUTY_CACHE = mkdtempSync(join(tmpdir(), "deputy-empty-cache-"));
    try {
      expect(() => parseEncoderSpec("local=qwen2.5-coder-0.5b-instruct")).toThrow(/scripts\/models\.sh/);
    } finally {
      if (saved === undefined) delete process.env.DEPUTY_CACHE;
      else process.env.DEPUTY_CACHE = saved;
    }
  });
});
