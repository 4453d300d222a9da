// A tuned reader's label head as a distilled level serves it: the record beside a reader is a file anyone could
// have written (never trusted to parse, never a crash), a model file's head must fit its encoder and tools, and the
// level decides the tool and chosen arguments by the head and fills the rest with its own heads.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DistilledPredictor } from "./distilled-predictor.js";
import { prepareInput } from "./input-features.js";
import { validateModel, type DistilledModelData } from "./model-file.js";
import { readerHeadBeside, readerHeadLogits, softmax, type ReaderHeadData } from "./reader-head.js";
import { trainDistilled } from "./train-distilled.js";
import { learnExamples } from "../eval/learn/learn.fixture.js";

const root = mkdtempSync(join(tmpdir(), "deputy-reader-head-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SHA = "a".repeat(64);

/** A head over a 3-dimensional reader: each label's row picks out one coordinate. */
const head = (over: Partial<ReaderHeadData> = {}): ReaderHeadData => ({
  sha256: SHA,
  prefix: "Route this alert: ",
  labels: [
    { name: "page", arguments: {} },
    { name: "ticket", arguments: { priority: "P2" } },
    { name: "ticket", arguments: { priority: "P3" } },
  ],
  weights: [
    [4, 0, 0],
    [0, 4, 0],
    [0, 0, 4],
  ],
  ...over,
});

describe("readerHeadBeside", () => {
  it("reads the head recorded for this very file, and nothing else", () => {
    const gguf = join(root, "n.reader-aaaa.gguf");
    const record = join(root, "n.reader-aaaa.json");
    const h = head();
    writeFileSync(
      record,
      JSON.stringify({ sha256: SHA, prefix: h.prefix, head: { labels: h.labels, weights: h.weights } }),
    );
    expect(readerHeadBeside(gguf, SHA)).toEqual(h);
    // another file's record (a reader tuned again, or copied over): not this head
    expect(readerHeadBeside(gguf, "b".repeat(64))).toBeUndefined();
    // no record, or a record without a head (a reader tuned before heads were kept)
    expect(readerHeadBeside(join(root, "other.gguf"), SHA)).toBeUndefined();
    writeFileSync(record, JSON.stringify({ sha256: SHA, prefix: "" }));
    expect(readerHeadBeside(gguf, SHA)).toBeUndefined();
  });

  it("never throws on whatever the record holds, and returns only a head of consistent shape", () => {
    const gguf = join(root, "fuzz.reader.gguf");
    const record = join(root, "fuzz.reader.json");
    const anyHead = fc.record(
      {
        labels: fc.array(
          fc.record({
            name: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
            arguments: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.constant(null)),
          }),
          { maxLength: 4 },
        ),
        weights: fc.array(fc.array(fc.oneof(fc.double(), fc.string(), fc.constant(null)), { maxLength: 4 }), {
          maxLength: 4,
        }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          anyHead.map((h) => JSON.stringify({ sha256: SHA, prefix: "x", head: h })),
        ),
        (text) => {
          writeFileSync(record, text);
          const got = readerHeadBeside(gguf, SHA);
          if (got === undefined) return;
          expect(got.labels.length).toBe(got.weights.length);
          expect(got.labels.length).toBeGreaterThanOrEqual(2);
          const width = got.weights[0]!.length;
          for (const row of got.weights) {
            expect(row.length).toBe(width);
            for (const w of row) expect(Number.isFinite(w)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a distilled level with a reader head", () => {
  const examples = learnExamples(120);
  const model = (): DistilledModelData => {
    const m = trainDistilled(examples, { node: "route", seed: 1 }).model;
    // as trained on a 3-dimensional reader (the head only reads the raw vector given at predict time)
    return {
      ...m,
      encoder: {
        kind: "gguf",
        name: "r",
        sha256: SHA,
        dimension: 3,
        pooling: "last",
        prefix: "",
        input: "task",
      },
      readerHead: head(),
    };
  };

  it("a model file's head must read its encoder, with rows of its dimension, over its tools", () => {
    expect(validateModel(model()).readerHead).toEqual(head());
    const problems = (m: unknown) => {
      try {
        validateModel(m);
        return [];
      } catch (error) {
        return (error as { problems: string[] }).problems;
      }
    };
    expect(problems({ ...model(), readerHead: head({ sha256: "b".repeat(64) }) })).toEqual([
      "readerHead.sha256: not the encoder the model was trained on",
    ]);
    expect(
      problems({
        ...model(),
        readerHead: head({
          weights: [
            [1, 2],
            [3, 4],
            [5, 6],
          ],
        }),
      }),
    ).toEqual(["readerHead.weights: rows of 2, not the encoder's 3 dimensions"]);
    expect(
      problems({
        ...model(),
        readerHead: head({ labels: [...head().labels.slice(0, 2), { name: "rm_rf", arguments: {} }] }),
      }),
    ).toEqual(['readerHead.labels.2: "rm_rf" is not one of the model\'s tools']);
    const { encoder: _, ...withoutEncoder } = model();
    expect(problems(withoutEncoder)).toContain("readerHead: only a model trained on the reader has one");
    expect(problems({ ...model(), readerHead: head({ weights: [[1, 0, 0]] }) })).not.toEqual([]);
  });

  it("decides the tool and chosen arguments by the head, copies the rest with its own heads", () => {
    const predictor = new DistilledPredictor(model());
    const input = prepareInput("Route this alert: billing is down", {}, model().features);
    const raw = Float32Array.from([0.1, 0.2, 1.5]);
    const p = softmax(readerHeadLogits(head(), raw));
    const got = predictor.predict(input, undefined, raw);
    // the head says ticket P3, whatever the words say; the service is copied by the model's own span head
    expect(got.name).toBe("ticket");
    expect(got.arguments).toMatchObject({ priority: "P3", service: "billing" });
    expect(got.confidence).toBeLessThanOrEqual(p[2]!);
    expect(got.confidence).toBeGreaterThan(0.5 * p[2]!);
    // only the offered tools: the best offered label, at its own probability (the rest are not renormalised)
    const paged = predictor.predict(input, new Set(["page"]), raw);
    expect(paged).toMatchObject({ name: "page", arguments: { service: "billing" } });
    expect(paged.confidence).toBeLessThanOrEqual(p[0]!);
    // without the raw vector the level cannot decide: a clear error, not a guess from other heads
    expect(() => predictor.predict(input)).toThrow(/raw vector/);
  });
});
