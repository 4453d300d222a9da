import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DelegateBackendError, DistilledModelError } from "../errors/index.js";
import { alertTriageExamples, alertTriageModel, alertTriageTools } from "./alert-triage.fixture.js";
import { alertTriageEncoder, alertTriageEncoderModel } from "./alert-triage-encoder.fixture.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { encoderModelForTests } from "./encoder-model-path.js";
import { DistilledPredictor, sameCall } from "./distilled-predictor.js";
import { encoderText } from "./encoder-input.js";
import { measureModel } from "./measure-model.js";
import { withoutEmbedding } from "./input-features.js";
import { loadModelFile, saveModelFile, validateModel } from "./model-file.js";
import { outOfDomainExamples } from "./out-of-domain-inputs.js";
import { parseEncoderSpec, type TextEncoder } from "./text-encoder.js";
import { exactMatch } from "./training-examples.js";

const TIMEOUT = 600_000;
const context = { runId: "r", nodeId: "triage_items" };
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

/** The same encoder under another identity (another checksum), counting the texts of each call. */
function impostor(encoder: TextEncoder, batches: number[] = []): TextEncoder {
  return {
    info: { ...encoder.info, sha256: "0".repeat(64) },
    embed: (texts) => {
      batches.push(texts.length);
      return encoder.embed(texts);
    },
    close: async () => {},
  };
}

describe("GgufTextEncoder (all-MiniLM-L6-v2 through node-llama-cpp)", () => {
  it(
    "embeds to unit vectors whose geometry carries meaning, and records what it is",
    { timeout: TIMEOUT },
    async () => {
      const encoder = await alertTriageEncoder();
      const path = encoderModelForTests();
      expect(encoder.info).toMatchObject({ kind: "gguf", name: "all-MiniLM-L6-v2", dimension: 384, path });
      expect(encoder.info.sha256).toBe(createHash("sha256").update(readFileSync(path)).digest("hex"));
      const [disk, storage, lunch, empty] = await encoder.embed([
        "Disk usage on db-3 is at 97% and rising",
        "The database server is running out of storage space",
        "Weekly team lunch moved to Friday",
        "",
      ]);
      expect(Math.abs(dot(disk!, disk!) - 1)).toBeLessThan(1e-4);
      expect(dot(disk!, storage!)).toBeGreaterThan(dot(disk!, lunch!) + 0.3);
      expect(empty!.every((v) => v === 0)).toBe(true);
      // A text seen again (a retried item, a training text) comes from memory: the very same vector.
      const [again, other] = await encoder.embed(["Disk usage on db-3 is at 97% and rising", "Another text"]);
      expect(again).toBe(disk);
      expect(dot(other!, disk!)).toBeLessThan(0.99);
    },
  );

  it("parses only gguf=PATH specs", () => {
    expect(parseEncoderSpec("gguf=/m/x.gguf")).toEqual({ kind: "gguf", path: "/m/x.gguf" });
    for (const bad of ["", "gguf", "gguf=", "onnx=/x", "/x.gguf"])
      expect(() => parseEncoderSpec(bad)).toThrow(/--encoder/);
  });
});

describe("DistilledDelegate on a pretrained encoder", () => {
  it("records the encoder in the model file and learns the node's calls", { timeout: TIMEOUT }, async () => {
    const { model, heldOutAccuracy } = await alertTriageEncoderModel();
    const encoder = await alertTriageEncoder();
    expect(model.encoder).toMatchObject({
      kind: "gguf",
      name: "all-MiniLM-L6-v2",
      sha256: encoder.info.sha256,
      dimension: 384,
      prefix: "Analyze this alert and select the most appropriate action: ",
    });
    expect(Object.keys(model.toolHead.weights)).toContain("e:383");
    expect(heldOutAccuracy).toBeGreaterThan(0.8);
    const file = join(mkdtempSync(join(tmpdir(), "deputy-encoder-")), "m.json");
    saveModelFile(file, model);
    expect(loadModelFile(file).encoder).toEqual(model.encoder);
    const delegate = new DistilledDelegate({ model: file, encoder });
    const tools = alertTriageTools();
    let right = 0;
    const heldOut = alertTriageExamples("heldOut").slice(0, 30);
    for (const e of heldOut) {
      const p = await delegate.propose({ instruction: e.instruction, facts: e.facts, tools, context });
      if (exactMatch(p, e.call)) right++;
    }
    expect(right / heldOut.length).toBeGreaterThan(0.8);
  });

  it(
    "refuses to load with another encoder, without one, or an n-gram model with one",
    { timeout: TIMEOUT },
    async () => {
      const { model } = await alertTriageEncoderModel();
      const encoder = await alertTriageEncoder();
      const mismatch = (f: () => unknown) => {
        try {
          f();
        } catch (error) {
          expect(error).toBeInstanceOf(DistilledModelError);
          return (error as DistilledModelError).code + " " + (error as Error).message;
        }
        throw new Error("expected a refusal");
      };
      expect(mismatch(() => new DistilledDelegate({ model, encoder: impostor(encoder) }))).toMatch(
        /^DISTILLED_ENCODER_MISMATCH .*trained with the encoder all-MiniLM-L6-v2 .*retrain/,
      );
      expect(mismatch(() => new DistilledDelegate({ model }))).toMatch(
        /DISTILLED_ENCODER_MISMATCH .*--encoder/,
      );
      expect(mismatch(() => new DistilledDelegate({ model: alertTriageModel().model, encoder }))).toMatch(
        /DISTILLED_ENCODER_MISMATCH .*trained without an encoder/,
      );
      // DistilledDelegate.open opens the encoder from the path the model records and checks it the same way.
      const opened = await DistilledDelegate.open({ model });
      await opened.close();
      await expect(
        DistilledDelegate.open({
          model: { ...model, encoder: { ...model.encoder!, sha256: "1".repeat(64) } },
        }),
      ).rejects.toMatchObject({ code: "DISTILLED_ENCODER_MISMATCH" });
      // Measuring it on labelled examples needs the encoder too.
      await expect(measureModel(model, alertTriageExamples("heldOut").slice(0, 2))).rejects.toMatchObject({
        code: "DISTILLED_ENCODER_MISMATCH",
        message: expect.stringMatching(/needs its encoder all-MiniLM-L6-v2/),
      });
    },
  );

  it("validates the encoder part of a model file", { timeout: TIMEOUT }, async () => {
    const { model } = await alertTriageEncoderModel();
    const problems = (value: unknown) => {
      try {
        validateModel(value);
        return [];
      } catch (error) {
        return (error as DistilledModelError).problems;
      }
    };
    expect(problems({ ...model, encoder: { ...model.encoder!, sha256: "abc" } }).join()).toMatch(
      /encoder.sha256/,
    );
    expect(problems({ ...model, encoder: { ...model.encoder!, dimension: 100 } }).join()).toMatch(
      /e:383: an encoder feature beyond the encoder's 100 dimensions/,
    );
    const { encoder: _, crossCheck: __, ...withoutEncoder } = model;
    expect(problems(withoutEncoder).join()).toMatch(/it records no encoder/);
    const check = model.crossCheck!;
    expect(
      problems({
        ...model,
        crossCheck: { ...check, calibration: { ...check.calibration, bias: "x" } },
      }).join(),
    ).toMatch(/crossCheck.calibration.bias/);
    expect(
      problems({
        ...model,
        crossCheck: {
          ...check,
          toolHead: { ...check.toolHead, classes: [...check.toolHead.classes.slice(1), "page_someone"] },
        },
      }).join(),
    ).toMatch(/crossCheck.toolHead.classes: "page_someone" is not one of the model's tools/);
    expect(problems({ ...model, crossCheck: { ...check, toolHead: model.toolHead } }).join()).toMatch(
      /crossCheck.toolHead.weights: the n-gram cross-check reads no encoder features/,
    );
    const { model: ngrams } = alertTriageModel();
    expect(problems({ ...ngrams, crossCheck: check }).join()).toMatch(/crossCheck: only an encoder model/);
  });

  it(
    "accepts a call only when its n-gram cross-check proposes the same call, and chose the threshold so",
    { timeout: TIMEOUT },
    async () => {
      const { model, choiceScores } = await alertTriageEncoderModel();
      const encoder = await alertTriageEncoder();
      expect(model.crossCheck).toBeDefined();
      expect(Object.keys(model.crossCheck!.toolHead.weights).some((f) => f.startsWith("e:"))).toBe(false);
      // The cross-check is the n-gram model on the same traces: trained alone it proposes the same calls.
      const inputs = alertTriageExamples("heldOut").slice(0, 40);
      const vectors = await encoder.embed(
        inputs.map((e) => encoderText(e.instruction, model.encoder!.prefix)),
      );
      const both = new DistilledPredictor(model);
      const alone = new DistilledPredictor({ ...model, crossCheck: undefined });
      const ngrams = new DistilledPredictor({ ...model, ...model.crossCheck! });
      let disagreed = 0;
      inputs.forEach((e, i) => {
        const input = both.prepare(e.instruction, e.facts, vectors[i]);
        const p = both.predict(input);
        const own = alone.predict(input);
        const other = ngrams.predict(withoutEmbedding(input));
        const agrees = sameCall(own, other);
        expect(p.crossCheckAgrees).toBe(agrees);
        expect(p.confidence).toBe(agrees ? own.confidence : 0);
        if (!agrees) disagreed++;
      });
      expect(disagreed).toBeLessThan(inputs.length / 2);
      // A cross-check that always proposes ignore_alert vetoes every other call.
      const contrary = {
        ...model,
        crossCheck: { ...model.crossCheck!, toolHead: { classes: ["ignore_alert"], weights: {} } },
      };
      const vetoed = new DistilledPredictor(contrary);
      let others = 0;
      for (const [i, e] of inputs.entries()) {
        const p = vetoed.predict(vetoed.prepare(e.instruction, e.facts, vectors[i]));
        if (p.name !== "ignore_alert") {
          others++;
          expect(p.confidence).toBe(0);
        }
      }
      expect(others).toBeGreaterThan(10);
      // The threshold was chosen on scores with the same rule: vetoed calls scored 0 there too.
      expect(choiceScores.length).toBeGreaterThan(0);
    },
  );

  it("batches the items proposing side by side into one encoder call", { timeout: TIMEOUT }, async () => {
    const { model } = await alertTriageEncoderModel();
    const real = await alertTriageEncoder();
    const batches: number[] = [];
    const counting = { ...impostor(real, batches), info: real.info };
    const delegate = new DistilledDelegate({ model, encoder: counting });
    const tools = alertTriageTools();
    const items = alertTriageExamples("heldOut").slice(0, 8);
    await Promise.all(
      items.map((e, item) =>
        delegate.propose({
          instruction: e.instruction,
          facts: e.facts,
          tools,
          context: { ...context, item },
        }),
      ),
    );
    expect(batches).toEqual([8]);
  });

  it(
    "refuses changed tools with a backend error, as the n-gram model does",
    { timeout: TIMEOUT },
    async () => {
      const { model } = await alertTriageEncoderModel();
      const delegate = new DistilledDelegate({ model, encoder: await alertTriageEncoder() });
      const tools = alertTriageTools().map((t) =>
        t.name === "file_jira_ticket"
          ? {
              ...t,
              parameters: { ...t.parameters, required: [...(t.parameters.required as string[]), "team"] },
            }
          : t,
      );
      const e = alertTriageExamples("heldOut")[0]!;
      await expect(
        delegate.propose({ instruction: e.instruction, facts: e.facts, tools, context }),
      ).rejects.toSatisfy(
        (error) => error instanceof DelegateBackendError && error.code === "DISTILLED_TOOLS_CHANGED",
      );
    },
  );

  it(
    "is unsure of what it never saw: ≥ 95% of out-of-domain, other-language, gibberish and empty inputs fall below the threshold",
    { timeout: TIMEOUT },
    async () => {
      const { model } = await alertTriageEncoderModel();
      const delegate = new DistilledDelegate({ model, encoder: await alertTriageEncoder() });
      const inputs = outOfDomainExamples(alertTriageExamples("heldOut")[0]!);
      const tools = alertTriageTools();
      let below = 0;
      // Sixteen at a time, as a for_each would ask: the encoder embeds each group in one batch.
      for (let i = 0; i < inputs.length; i += 16) {
        const proposals = await Promise.all(
          inputs
            .slice(i, i + 16)
            .map((e) => delegate.propose({ instruction: e.instruction, facts: e.facts, tools, context })),
        );
        below += proposals.filter((p) => (p.confidence ?? 0) < model.recommendedMinConfidence).length;
      }
      expect(inputs.length).toBeGreaterThan(500);
      expect(below / inputs.length).toBeGreaterThanOrEqual(0.95);
    },
  );
});
