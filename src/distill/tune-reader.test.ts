// deputy's reader tuner, run for real (python/deputy_tune.py with torch, transformers, peft and gguf from the
// Python that scripts/tune-env.sh installs; `npm test` installs it) on the tiny fixture: a random-weight llama
// GGUF of deputy-js/testing and a few steps, never real weights. What a user relies on: the file named by its
// content with how it was made beside it, the same seed writing the same bytes, the weights written back in the
// file's own layout (no steps: the same embeddings as the base), and a missing Python or a stopped run leaving
// nothing behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LEARN_NODE, LEARN_TOOLS, learnExamples } from "../eval/learn/learn.fixture.js";
import { writeTinyModel } from "../testing/index.js";
import { fileSha256 } from "./file-sha256.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { encoderInput } from "./encoder-input.js";
import { readerHeadBeside, readerHeadLogits, softmax } from "./reader-head.js";
import { trainDistilledWithEncoder } from "./train-with-encoder.js";
import { HEAD_TOLERANCE, tuneReader, tunePython } from "./tune-reader.js";

const root = mkdtempSync(join(tmpdir(), "deputy-tune-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const base = join(root, "tiny.gguf");
writeTinyModel(base, { seed: 1 });
const examples = learnExamples(40);
const python = tunePython();

describe("tuneReader (the real trainer on a tiny random-weight model)", () => {
  it(
    "writes NODE.reader-SHA12.gguf and how it was made beside it; the same seed writes the same bytes",
    { timeout: 180_000 },
    async () => {
      const [a, b] = [mkdtempSync(join(root, "a-")), mkdtempSync(join(root, "b-"))];
      const steps: number[] = [];
      const first = await tuneReader({
        base,
        examples,
        dir: a,
        stem: "route.model",
        python,
        maxSteps: 3,
        onStep: (s) => steps.push(s),
      });
      expect(steps).toEqual([1, 2, 3]);
      expect(first.sha256).toBe(await fileSha256(first.path));
      expect(first.path).toBe(join(a, `route.model.reader-${first.sha256.slice(0, 12)}.gguf`));
      expect(first.labels).toEqual(["page", 'ticket priority="P2"', 'ticket priority="P3"']);
      expect(readdirSync(a).sort()).toEqual(
        [
          `route.model.reader-${first.sha256.slice(0, 12)}.gguf`,
          `route.model.reader-${first.sha256.slice(0, 12)}.json`,
        ].sort(),
      );
      const record = JSON.parse(readFileSync(first.path.replace(/\.gguf$/, ".json"), "utf8")) as Record<
        string,
        unknown
      >;
      expect(record).toMatchObject({
        seed: 1,
        examples: 40,
        steps: 3,
        base: { sha256: await fileSha256(base) },
      });
      const again = await tuneReader({ base, examples, dir: b, stem: "route.model", python, maxSteps: 3 });
      expect(again.sha256).toBe(first.sha256);
      const encoder = await GgufTextEncoder.open(first.path);
      try {
        expect(encoder.info.dimension).toBe(64);
        expect(encoder.info.sha256).toBe(first.sha256);
      } finally {
        await encoder.close();
      }
    },
  );

  it(
    "folds the weights back in the file's own layout: with no step taken it embeds as the base does",
    { timeout: 180_000 },
    async () => {
      const untouched = await tuneReader({
        base,
        examples,
        dir: mkdtempSync(join(root, "zero-")),
        stem: "n",
        python,
        maxSteps: 0,
      });
      const texts = examples.slice(0, 4).map((e) => `${e.instruction}\nAction:`);
      const vectors = async (path: string) => {
        const e = await GgufTextEncoder.open(path);
        try {
          return await e.embed(texts);
        } finally {
          await e.close();
        }
      };
      const [was, now] = [await vectors(base), await vectors(untouched.path)];
      for (const [i, v] of was.entries()) {
        let dot = 0;
        let nv = 0;
        let nw = 0;
        for (let k = 0; k < v.length; k++) {
          dot += v[k]! * now[i]![k]!;
          nv += v[k]! ** 2;
          nw += now[i]![k]! ** 2;
        }
        // the attention weights go back as F16: the same vectors up to its rounding
        expect(dot / Math.sqrt(nv * nw)).toBeGreaterThan(0.999);
      }
    },
  );

  it(
    "keeps its label head, checked against llama.cpp's reading of the file; a level trained on the reader decides by it",
    { timeout: 180_000 },
    async () => {
      const tuned = await tuneReader({
        base,
        examples,
        dir: mkdtempSync(join(root, "head-")),
        stem: "route.model",
        python,
        maxSteps: 5,
      });
      expect(tuned.headCheck).toMatchObject({ texts: 4, sameLabels: true, kept: true });
      expect(tuned.headCheck!.maxLogitDelta).toBeLessThanOrEqual(HEAD_TOLERANCE);
      const encoder = await GgufTextEncoder.open(tuned.path);
      try {
        const head = readerHeadBeside(tuned.path, tuned.sha256)!;
        expect(head.labels).toEqual([
          { name: "page", arguments: {} },
          { name: "ticket", arguments: { priority: "P2" } },
          { name: "ticket", arguments: { priority: "P3" } },
        ]);
        expect(head.weights.map((r) => r.length)).toEqual([64, 64, 64]);
        const trained = await trainDistilledWithEncoder(examples, { node: LEARN_NODE, seed: 1 }, encoder);
        expect(trained.model.readerHead).toEqual(head);
        // and not when asked to keep the level's own heads
        const own = await trainDistilledWithEncoder(
          examples,
          { node: LEARN_NODE, seed: 1, readerHead: false },
          encoder,
        );
        expect(own.model.readerHead).toBeUndefined();
        // The head gates at the target precision (0.98 by default); the own heads' out-of-fold choice is kept aside.
        expect(trained.model.recommendedMinConfidence).toBe(0.98);
        expect(trained.ownMinConfidence).toBe(own.model.recommendedMinConfidence);
        const delegate = new DistilledDelegate({ model: trained.model, encoder });
        for (const e of learnExamples(6, 9)) {
          const [raw] = await encoder.embedRaw([
            encoderInput(trained.model.encoder!, e.instruction, e.facts),
          ]);
          const p = softmax(readerHeadLogits(head, raw!));
          const best = head.labels[p.indexOf(Math.max(...p))]!;
          const proposal = await delegate.propose({
            instruction: e.instruction,
            facts: e.facts,
            tools: LEARN_TOOLS,
            context: { runId: "r", nodeId: LEARN_NODE },
          });
          expect(proposal.name).toBe(best.name);
          expect(proposal.arguments).toMatchObject(best.arguments);
          expect(proposal.confidence).toBeLessThanOrEqual(Math.max(...p) + 1e-9);
        }
      } finally {
        await encoder.close();
      }
    },
  );

  it("a Python without the packages, or none, is one clear error and leaves nothing", async () => {
    const dir = mkdtempSync(join(root, "no-python-"));
    await expect(
      tuneReader({ base, examples, dir, stem: "n", python: join(root, "no-such-python") }),
    ).rejects.toMatchObject({
      code: "INVALID_OPTION",
      message: expect.stringMatching(/scripts\/tune-env\.sh/),
    });
    // the machine's own python3 has no torch
    await expect(
      tuneReader({ base, examples, dir, stem: "n", python: "/usr/bin/python3" }),
    ).rejects.toMatchObject({
      code: "INVALID_OPTION",
      message: expect.stringMatching(/needs torch, transformers, peft and gguf \(\w+ is missing\)/),
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it(
    "a base that is not a decoder it can load is one clear error about --encoder",
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(root, "not-a-decoder-"));
      const garbage = join(root, "garbage.gguf");
      writeFileSync(garbage, "GGUF but not really");
      await expect(tuneReader({ base: garbage, examples, dir, stem: "n", python })).rejects.toMatchObject({
        code: "INVALID_OPTION",
        option: "--encoder",
        message: expect.stringMatching(/cannot load .*garbage\.gguf as a decoder to tune/),
      });
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it(
    "decisions all of one call teach nothing; a run stopped at its estimate writes nothing",
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(root, "refused-"));
      const pages = examples.filter((e) => e.call.name === "page");
      await expect(tuneReader({ base, examples: pages, dir, stem: "n", python })).rejects.toMatchObject({
        code: "INVALID_OPTION",
      });
      const stopped = tuneReader({
        base,
        examples,
        dir,
        stem: "n",
        python,
        maxSteps: 50,
        onEstimate: (e) => {
          expect(e).toMatchObject({ examples: 40, labels: 3, steps: 5, timed: 2 });
          expect(e.seconds).toBeGreaterThan(0);
          throw new Error("over the bound");
        },
      });
      await expect(stopped).rejects.toThrow("over the bound");
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync(join(dir, "n.reader.tuning.gguf.partial"))).toBe(false);
    },
  );
});
