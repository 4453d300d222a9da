import fc from "fast-check";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GgufTextEncoder } from "../distill/gguf-text-encoder.js";
import { encoderModelForTests } from "../distill/encoder-model-path.js";
import type { DelegateTrace } from "../traces/trace.js";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import { proposeAndJudge } from "./propose-and-judge.js";
import type { ProposeRequest, ToolSpec } from "./protocol.js";
import { cosine, RelevanceDelegate, relevanceOf, taskRelevanceText, toolRelevanceText } from "./relevance.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

const specs = defaultDelegateSpecs();
const createDelegateFromSpec = (spec: string) => specs.create(spec);

const weather: ToolSpec = {
  name: "get_current_weather",
  description: "Fetches the current weather for a city: temperature, wind and rain.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const interest: ToolSpec = {
  name: "calculateCompoundInterest",
  description: "Calculate compound interest on a principal over a number of years.",
  parameters: { type: "object", properties: { principal: { type: "number" } } },
};
const request = (instruction: string, tools: ToolSpec[] = [weather]): ProposeRequest => ({
  instruction,
  facts: {},
  tools,
  context: { runId: "r", nodeId: "a" },
});

describe("the relevance texts", () => {
  it("reads a tool's name as words before its description", () => {
    expect(toolRelevanceText(weather)).toBe(
      "get current weather: Fetches the current weather for a city: temperature, wind and rain.",
    );
    expect(toolRelevanceText(interest)).toMatch(/^calculate compound interest: /);
    expect(toolRelevanceText({ name: "ns.tool/run", description: "" })).toBe("ns tool run");
  });

  it("puts the instruction before the facts and cuts the text at 2000 characters", () => {
    expect(taskRelevanceText("Triage", { alert: "disk full" })).toBe('Triage\n{"alert":"disk full"}');
    expect(taskRelevanceText("x".repeat(5000), { a: 1 })).toHaveLength(2000);
    // An astral character at the cut is kept whole or dropped, never halved.
    const cut = taskRelevanceText("a".repeat(1999) + "😀😀", {});
    expect(cut).toBe("a".repeat(1999));
    expect(taskRelevanceText("a".repeat(1998) + "😀😀", {})).toBe("a".repeat(1998) + "😀");
  });

  it("never crashes and stays in bounds on any task or tool text (generated)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 3000 }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.string(),
        (instruction, facts, name, description) => {
          const text = taskRelevanceText(instruction, facts);
          expect(text.length).toBeLessThanOrEqual(2000);
          // Never half a surrogate pair at the cut.
          expect(/[\ud800-\udbff]$/.test(text) && !/[\ud800-\udbff]$/.test(instruction)).toBe(false);
          expect(typeof toolRelevanceText({ name, description })).toBe("string");
        },
      ),
    );
  });

  it("cosine is within -1..1 and never NaN, whatever the vectors (generated)", () => {
    const vector = fc.array(fc.float({ noNaN: false }), { maxLength: 8 }).map((xs) => Float32Array.from(xs));
    fc.assert(
      fc.property(vector, vector, (a, b) => {
        const c = cosine(a, b);
        expect(Number.isNaN(c)).toBe(false);
        expect(c).toBeGreaterThanOrEqual(-1);
        expect(c).toBeLessThanOrEqual(1);
      }),
    );
    expect(cosine(new Float32Array(3), Float32Array.of(1, 0, 0))).toBe(0);
  });
});

describe("relevance on the real encoder (all-MiniLM-L6-v2)", () => {
  let encoder: GgufTextEncoder;
  beforeAll(async () => {
    encoder = await GgufTextEncoder.open(encoderModelForTests(), { contexts: 1 });
  });
  afterAll(() => encoder.close());

  it("scores a fitting task above an unrelated one, and names the nearest tool", async () => {
    const fits = await relevanceOf(encoder, "What is the weather in Paris right now?", {}, [
      interest,
      weather,
    ]);
    const unrelated = await relevanceOf(encoder, "Who wrote the novel Moby-Dick?", {}, [interest, weather]);
    expect(fits.tool).toBe("get_current_weather");
    expect(fits.score).toBeGreaterThan(0.42);
    expect(unrelated.score).toBeLessThan(0.42);
    expect(fits.score).toBeGreaterThan(unrelated.score);
  });

  it("gives a finite score for any task and tool text, empty and huge ones included (generated)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.string({ minLength: 20_000, maxLength: 30_000 }), fc.constant("")),
        fc.string(),
        fc.oneof(fc.string(), fc.string({ minLength: 5000, maxLength: 8000 })),
        async (instruction, name, description) => {
          const { score, tool } = await relevanceOf(encoder, instruction, { note: instruction }, [
            { name, description },
          ]);
          expect(Number.isFinite(score)).toBe(true);
          expect(Math.abs(score)).toBeLessThanOrEqual(1);
          expect(tool).toBe(name);
        },
      ),
      { numRuns: 8 },
    );
  });

  it("declines below the threshold without asking the backend, and asks it above", async () => {
    const inner = new ScriptedDelegate({
      name: "qwen",
      entries: [{ node: "a", proposal: { name: "get_current_weather", arguments: { city: "Paris" } } }],
    });
    const delegate = new RelevanceDelegate({ inner, encoder, threshold: 0.42 });
    expect([delegate.name, delegate.maxTools]).toEqual(["qwen", inner.maxTools]);

    const declined = await delegate.propose(request("Who wrote the novel Moby-Dick?"));
    expect(declined).toMatchObject({ name: null, confidence: null, backend: "qwen" });
    expect(declined.relevance).toMatchObject({ threshold: 0.42, tool: "get_current_weather" });
    expect(declined.relevance!.score).toBeLessThan(0.42);
    expect(inner.remaining).toBe(1);

    const called = await delegate.propose(request("What is the weather in Paris right now?"));
    expect(called).toMatchObject({ name: "get_current_weather", arguments: { city: "Paris" } });
    expect(called.relevance!.score).toBeGreaterThanOrEqual(0.42);
    expect(inner.remaining).toBe(0);
  });

  it("declines a weakly relevant call made without confidence, and keeps a confident one", async () => {
    const entries = [
      { node: "a", proposal: { name: "get_current_weather", arguments: { city: "x" }, confidence: 0.1 } },
      { node: "a", proposal: { name: "get_current_weather", arguments: { city: "x" }, confidence: 0.9 } },
    ];
    const delegate = new RelevanceDelegate({
      inner: new ScriptedDelegate({ entries }),
      encoder,
      threshold: -1,
      weak: { below: 1, minConfidence: 0.3 },
    });
    const unsure = await delegate.propose(request("Is it windy?"));
    expect(unsure).toMatchObject({ name: null, arguments: {}, confidence: null });
    expect(unsure.relevance!.weak).toEqual({
      below: 1,
      minConfidence: 0.3,
      declined: "get_current_weather",
      confidence: 0.1,
    });
    const sure = await delegate.propose(request("Is it windy?"));
    expect(sure).toMatchObject({ name: "get_current_weather", confidence: 0.9 });
    expect(sure.relevance!.weak).toBeUndefined();
    // After a self-check the second look reads the call's own confidence, not the one the check lowered.
    const checked = new RelevanceDelegate({
      inner: {
        name: "local",
        maxTools: 5,
        maxInputChars: 1000,
        propose: async () => ({
          name: "get_current_weather",
          arguments: { city: "x" },
          confidence: 0.25,
          backend: "local",
          latencyMs: 1,
          selfCheck: { score: 0.5, threshold: 0.4, callConfidence: 0.5 },
        }),
        close: async () => {},
      },
      encoder,
      threshold: -1,
      weak: { below: 1, minConfidence: 0.3 },
    });
    expect(await checked.propose(request("Is it windy?"))).toMatchObject({
      name: "get_current_weather",
      confidence: 0.25,
    });
    expect(
      () =>
        new RelevanceDelegate({
          inner: delegate,
          encoder,
          threshold: 0,
          weak: { below: 0.5, minConfidence: 2 },
        }),
    ).toThrow(/weak.minConfidence/);
  });

  it("with sure=, asks below the threshold and keeps a grounded or sure call, declining the rest", async () => {
    const call = (args: Record<string, unknown>, confidence: number) => ({
      node: "a",
      proposal: { name: "get_current_weather", arguments: args, confidence },
    });
    const inner = new ScriptedDelegate({
      entries: [
        call({ city: "Lima" }, 0.1), // made up, unsure: declined
        call({ city: "Paris" }, 0.1), // every value in the question: kept
        call({ city: "Lima" }, 0.9), // sure: kept
        call({}, 0.1), // no value to ground it, unsure: declined
      ],
    });
    const delegate = new RelevanceDelegate({ inner, encoder, threshold: 1, sure: 0.5 });
    const ask = () => delegate.propose(request("How is it in paris today?"));
    const madeUp = await ask();
    expect(madeUp).toMatchObject({ name: null, arguments: {}, confidence: null });
    expect(madeUp.relevance!.asked).toEqual({
      sure: 0.5,
      grounded: false,
      confidence: 0.1,
      declined: "get_current_weather",
    });
    const grounded = await ask();
    expect(grounded).toMatchObject({ name: "get_current_weather", arguments: { city: "Paris" } });
    expect(grounded.relevance!.asked).toEqual({ sure: 0.5, grounded: true, confidence: 0.1 });
    expect((await ask()).name).toBe("get_current_weather");
    expect((await ask()).relevance!.asked?.declined).toBe("get_current_weather");
    expect(inner.remaining).toBe(0);

    // A grounded call is spared the second look too; an ungrounded unsure one is not.
    const second = new RelevanceDelegate({
      inner: new ScriptedDelegate({ entries: [call({ city: "Paris" }, 0.1), call({ city: "Lima" }, 0.1)] }),
      encoder,
      threshold: -1,
      weak: { below: 1, minConfidence: 0.3 },
      sure: 0.5,
    });
    expect((await second.propose(request("Rain in Paris?"))).name).toBe("get_current_weather");
    expect((await second.propose(request("Rain in Paris?"))).relevance!.weak?.declined).toBe(
      "get_current_weather",
    );
    expect(() => new RelevanceDelegate({ inner, encoder, threshold: 0, sure: 1.5 })).toThrow(/sure/);
  });

  it("with sure=, counts a value the tool's own enum lists as grounded, and only for that tool", async () => {
    // "COOL" is not in the question but is one of the mode's listed values: picked, not made up.
    const airCon: ToolSpec = {
      name: "set_air_conditioner",
      description: "Sets the air conditioner's mode and target temperature.",
      parameters: {
        type: "object",
        properties: {
          body: {
            type: "object",
            properties: { mode: { type: "string", enum: ["COOL", "DRY"] }, target: { type: "integer" } },
          },
        },
      },
    };
    const inner = new ScriptedDelegate({
      entries: [
        {
          node: "a",
          proposal: {
            name: "set_air_conditioner",
            arguments: { body: { mode: "COOL", target: 24 } },
            confidence: 0.01,
          },
        },
        // A listed value does not ground an invented one beside it.
        {
          node: "a",
          proposal: {
            name: "set_air_conditioner",
            arguments: { body: { mode: "COOL", target: 19 } },
            confidence: 0.01,
          },
        },
        // Another tool's list grounds nothing: "COOL" is not a city.
        {
          node: "a",
          proposal: { name: "get_current_weather", arguments: { city: "COOL" }, confidence: 0.01 },
        },
      ],
    });
    const d = new RelevanceDelegate({ inner, encoder, threshold: 1, sure: 0.5 });
    const ask = () => d.propose(request("set it to 24 degrees please", [airCon, weather]));
    const picked = await ask();
    expect(picked.name).toBe("set_air_conditioner");
    expect(picked.relevance!.asked).toMatchObject({ grounded: true });
    expect((await ask()).relevance!.asked).toMatchObject({
      grounded: false,
      declined: "set_air_conditioner",
    });
    expect((await ask()).relevance!.asked).toMatchObject({
      grounded: false,
      declined: "get_current_weather",
    });
  });

  it("with sure=, any proposal the backend makes is either kept as it is or declined with the reason (generated)", async () => {
    const leaf = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
    );
    const args = fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })),
      {
        maxKeys: 4,
      },
    );
    await fc.assert(
      fc.asyncProperty(
        args,
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        fc.string({ maxLength: 80 }),
        async (a, confidence, question) => {
          const proposal = { name: "get_current_weather", arguments: a, confidence };
          const d = new RelevanceDelegate({
            inner: new ScriptedDelegate({ entries: [{ node: "a", proposal }] }),
            encoder,
            threshold: 1,
            sure: 0.5,
          });
          const out = await d.propose(request(question));
          const asked = out.relevance!.asked!;
          if (out.name === null) expect(asked.declined).toBe("get_current_weather");
          else {
            expect(out.arguments).toEqual(a);
            expect(asked.grounded || (confidence !== null && confidence >= 0.5)).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("is the gate's declined verdict, and the trace says why (score, threshold, nearest tool)", async () => {
    const traces: DelegateTrace[] = [];
    const delegate = new RelevanceDelegate({
      inner: new ScriptedDelegate({ entries: [] }),
      encoder,
      threshold: 0.42,
    });
    const judged = await proposeAndJudge(delegate, {
      request: request("Who wrote the novel Moby-Dick?"),
      gate: {
        candidates: ["get_current_weather"],
        findTool: () => undefined,
        allowSideEffects: { node: false, host: false },
        minConfidence: 0.5,
      },
      traceSink: { write: (t) => void traces.push(t) },
    });
    expect(judged.gate.verdict).toBe("declined");
    expect(traces).toHaveLength(1);
    expect(traces[0]!.verdict).toBe("declined");
    expect(traces[0]!.proposal?.relevance).toMatchObject({ threshold: 0.42, tool: "get_current_weather" });
  });
});

describe("relevance=encoder:T in a spec", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-relevance-"));
  const file = join(dir, "p.jsonl");
  writeFileSync(file, '{"node": "a", "proposal": {"name": "get_current_weather", "arguments": {}}}\n');

  it("wraps any kind, which keeps its own options", async () => {
    const d = await createDelegateFromSpec(
      `scripted=${file},name=replay,relevance=encoder:0.42:${encoderModelForTests()},maxTools=3`,
    );
    try {
      expect(d).toBeInstanceOf(RelevanceDelegate);
      expect([d.name, d.maxTools]).toEqual(["replay", 3]);
      await expect(d.propose(request("Who wrote the novel Moby-Dick?"))).resolves.toMatchObject({
        name: null,
        backend: "replay",
      });
    } finally {
      await d.close();
    }
  });

  it("refuses a bad threshold or a missing encoder in one line, before anything is opened", async () => {
    const weak = await createDelegateFromSpec(
      `scripted=${file},relevance=encoder:0.26/0.6@0.3:${encoderModelForTests()}`,
    );
    expect(weak).toBeInstanceOf(RelevanceDelegate);
    await weak.close();
    for (const bad of [
      "encoder:2",
      "encoder:x",
      "0.4",
      "encoder:",
      "encoder:0.2/0.6@3",
      "encoder:0.2/x@0.3",
    ]) {
      await expect(createDelegateFromSpec(`scripted=${file},relevance=${bad}`)).rejects.toThrow(
        /^Expected `relevance in --delegate .*` to be encoder:T/,
      );
    }
    await expect(
      createDelegateFromSpec(`scripted=${file},relevance=encoder:0.4:${join(dir, "none.gguf")}`),
    ).rejects.toThrow(/an existing GGUF encoder file/);
    // sure= is a share: an empty or out-of-range value is refused, not read as 0.
    for (const bad of ["", " ", "1.5", "-0.1", "most"])
      await expect(
        createDelegateFromSpec(
          `scripted=${file},relevance=encoder:0.4:${encoderModelForTests()},sure=${bad}`,
        ),
      ).rejects.toThrow(/^Expected `sure in --delegate .*` to be a number from 0 to 1/);
  });

  it("sure=false takes the asking below the threshold off (a catalogued model's sure= brings it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-relevance-"));
    const file = join(dir, "p.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ node: "a", proposal: { name: "get_current_weather", arguments: { city: "Paris" }, confidence: 0.9 } })}\n`,
    );
    const propose = async (sure: string) => {
      const d = await createDelegateFromSpec(
        `scripted=${file},relevance=encoder:1:${encoderModelForTests()},sure=${sure}`,
      );
      try {
        return await d.propose(request("Rain in Paris?"));
      } finally {
        await d.close();
      }
    };
    // Every task is below 1: with sure=0.5 the sure, grounded call is kept; with sure=false it is declined unasked.
    expect((await propose("0.5")).name).toBe("get_current_weather");
    const unasked = await propose("false");
    expect(unasked).toMatchObject({ name: null, confidence: null });
    expect(unasked.relevance!.asked).toBeUndefined();
  });
});
