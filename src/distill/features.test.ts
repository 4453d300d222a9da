import { describe, expect, it } from "vitest";
import { prepareInput, withoutEmbedding } from "./input-features.js";
import { NumberHead, trainNumberHead } from "./number-head.js";
import { locateSpan, SpanHead, trainSpanHead } from "./span-head.js";
import { tokenize, tokenNumber, tokenShape } from "./tokenize.js";
import { chooseArgumentKind } from "./fit-predictor.js";
import { examplesFromTraces, exactMatch } from "./training-examples.js";
import type { DelegateTrace } from "../traces/trace.js";

describe("tokenize", () => {
  it("keeps offsets, numbers and dotted names whole, and splits punctuation", () => {
    const text = "Error rate at 38% since 14:05 on static.example.com (v5.14), 1,200 users";
    const tokens = tokenize(text);
    expect(tokens.map((t) => t.text)).toEqual([
      "Error",
      "rate",
      "at",
      "38",
      "%",
      "since",
      "14:05",
      "on",
      "static.example.com",
      "(",
      "v5.14",
      ")",
      ",",
      "1,200",
      "users",
    ]);
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
    expect(tokenNumber("1,200")).toBe(1200);
    expect(tokenNumber("0.9")).toBe(0.9);
    expect(tokenNumber("14:05")).toBeUndefined();
    expect(["Error", "rate", "API", "38", "v5", "%"].map(tokenShape)).toEqual([
      "Xx",
      "x",
      "X",
      "d",
      "xd",
      "p",
    ]);
  });
});

describe("prepareInput", () => {
  it("makes word, bigram, character n-gram and fact features, numbers as <num>", () => {
    const input = prepareInput("Disk at 91%", { severity: "low", id: "ALR-1" });
    expect(input.features).toEqual(
      expect.arrayContaining([
        "bias",
        "w:disk",
        "w:<num>",
        "b:<s>_disk",
        "b:at_<num>",
        "c:^di",
        "c:isk$",
        "f:severity=low",
        "fw:id:alr",
      ]),
    );
    expect(input.words).toEqual(["disk", "at"]);
    expect(input.sources.map((s) => s.id)).toEqual(["i", "f:id", "f:severity"]);
    expect(prepareInput("", {}).features).toContain("empty");
  });

  it("without the encoder's group, values an input as if it had no embedding (what the n-gram cross-check reads)", () => {
    const facts = { severity: "low", id: "ALR-1" };
    const plain = prepareInput("Disk at 91% on db-3", facts);
    const embedded = prepareInput("Disk at 91% on db-3", facts, undefined, Float32Array.from([0.6, 0.8]));
    expect(embedded.features.slice(-2)).toEqual(["e:0", "e:1"]);
    expect(embedded.values[0]).toBeLessThan(plain.values[0]!);
    const back = withoutEmbedding(embedded);
    expect(back.features).toEqual(plain.features);
    expect([...back.values]).toEqual([...plain.values]);
    expect(withoutEmbedding(plain)).toBe(plain);
  });
});

describe("argument heads", () => {
  const inputs = [
    "Analyze: Checkout is down in eu-west-1",
    "Analyze: Search latency at 4s",
    "Analyze: Disk 91% full on web-3",
    "Analyze: Staging pod restarting",
    "Analyze: Payments failing for 12% of users",
    "Analyze: Login errors since 14:05",
  ].map((t, i) => prepareInput(t, { id: `ALR-${i}` }));

  it("finds whole-token spans, in the instruction first, then in the facts", () => {
    expect(locateSpan(inputs[0]!, "Checkout is down in eu-west-1")).toEqual({
      source: 0,
      first: 2,
      last: 10,
    });
    expect(locateSpan(inputs[0]!, "ALR-0")).toEqual({ source: 1, first: 0, last: 2 });
    expect(locateSpan(inputs[0]!, "heckout")).toBeUndefined();
  });

  it("learns to copy the text after the colon, and an id from the facts", () => {
    const text = (i: number) => inputs[i]!.sources[0]!.text.slice("Analyze: ".length);
    const summary = new SpanHead(
      trainSpanHead(
        inputs.map((input, i) => ({ input, location: locateSpan(input, text(i)) })),
        false,
        { epochs: 30 },
      ),
    );
    const id = new SpanHead(
      trainSpanHead(
        inputs.map((input, i) => ({ input, location: locateSpan(input, `ALR-${i}`) })),
        false,
        { epochs: 30 },
      ),
    );
    const fresh = prepareInput("Analyze: Cache hit ratio dropped on db-2", { id: "ALR-77" });
    expect(summary.predict(fresh)).toMatchObject({ present: true, value: "Cache hit ratio dropped on db-2" });
    expect(id.predict(fresh)).toMatchObject({ present: true, value: "ALR-77" });
  });

  it("reads numbers from the text by their context", () => {
    const samples = [
      ["Retry 3 times within 30 seconds", 30],
      ["Within 10 seconds, retry 5 times", 10],
      ["Retry 2 times within 45 seconds", 45],
      ["Within 60 seconds retry 1 time", 60],
    ].map(([t, v]) => ({ input: prepareInput(t as string, {}), value: v as number }));
    const head = new NumberHead(trainNumberHead(samples, true, false, { epochs: 40 }));
    expect(head.predict(prepareInput("Retry 4 times within 20 seconds", {}))).toMatchObject({
      present: true,
      value: 20,
    });
    expect(head.predict(prepareInput("no numbers here", {}))).toEqual({ present: false, probability: 0 });
  });

  it("chooses a head per argument: enums are classes, copied text spans, repeated values classes", () => {
    const s = (values: unknown[]) => values.map((value, i) => ({ input: inputs[i]!, value }));
    expect(chooseArgumentKind({ type: "string", enum: ["a", "b"] }, s(["a", "b"]))).toBe("class");
    expect(chooseArgumentKind({ type: "string" }, s(["Checkout is down", "Search latency"]))).toBe("span");
    expect(chooseArgumentKind({ type: "string" }, s(["noise", "noise", "real", "real", "noise"]))).toBe(
      "class",
    );
    expect(chooseArgumentKind({ type: "string" }, s(["OPS", "OPS"]))).toBe("class");
    expect(
      chooseArgumentKind({ type: "integer" }, [
        { input: inputs[2]!, value: 91 },
        { input: inputs[4]!, value: 12 },
      ]),
    ).toBe("number");
    expect(chooseArgumentKind({ type: "array" }, s([[1], [2]]))).toBe("class");
  });
});

describe("examplesFromTraces", () => {
  const base: DelegateTrace = {
    runId: "r",
    nodeId: "n",
    instruction: "do it",
    facts: {},
    tools: [],
    proposal: null,
    verdict: "accepted",
    finalCall: { name: "a", arguments: { x: 1 } },
    backend: "b",
    latencyMs: 1,
    time: "t",
  };

  it("keeps accepted calls and teacher declines of one node; drops the rest, duplicates, redacted text and calls naming no tool", () => {
    const { examples, skipped } = examplesFromTraces(
      [
        base,
        { ...base },
        { ...base, nodeId: "other" },
        { ...base, verdict: "low_confidence", finalCall: undefined },
        { ...base, instruction: "nothing fits", verdict: "declined", finalCall: undefined, source: "person" },
        { ...base, instruction: "the model declined", verdict: "declined", finalCall: undefined },
        { ...base, instruction: "token [REDACTED]" },
        { ...base, instruction: "names no tool", finalCall: { name: "", arguments: {} } },
        { ...base, instruction: "later wins", finalCall: { name: "a", arguments: {} } },
        { ...base, instruction: "later wins", finalCall: { name: "b", arguments: {} }, source: "person" },
      ],
      "n",
    );
    expect(examples.map((e) => [e.instruction, e.call.name, e.source])).toEqual([
      ["do it", "a", "delegate"],
      ["nothing fits", null, "person"],
      ["later wins", "b", "person"],
    ]);
    expect(skipped).toEqual({ otherNode: 1, notLabelled: 3, redacted: 1, duplicate: 1, conflicting: 1 });
  });

  it("compares calls exactly, key order aside", () => {
    expect(
      exactMatch({ name: "a", arguments: { x: 1, y: 2 } }, { name: "a", arguments: { y: 2, x: 1 } }),
    ).toBe(true);
    expect(exactMatch({ name: "a", arguments: { x: 1 } }, { name: "a", arguments: { x: 2 } })).toBe(false);
    expect(exactMatch({ name: null, arguments: {} }, { name: null, arguments: {} })).toBe(true);
  });
});
