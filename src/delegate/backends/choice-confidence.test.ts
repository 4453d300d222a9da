import { describe, expect, it } from "vitest";
import {
  branchPoints,
  candidateTexts,
  choiceDistribution,
  choiceProbability,
  decisionOffset,
  type CandidatePath,
} from "./choice-confidence.js";

/** Byte-level paths, like the tiny model's tokenizer: one token per character. */
const bytes = (key: string | null): CandidatePath => ({
  key,
  tokens: [...(key === null ? "null" : JSON.stringify(key))].map((c) => c.charCodeAt(0)),
});
const code = (c: string) => c.charCodeAt(0);

describe("choice confidence", () => {
  it("finds the decision point after the name key, whatever the whitespace", () => {
    expect(decisionOffset('{"name":"a"}')).toBe(8);
    expect(decisionOffset('{\n    "name" : null}')).toBe(15);
    expect(decisionOffset('{"arguments":{},"name":"a"}')).toBeUndefined();
  });

  it("lists each tool name as a JSON string, then null", () => {
    expect(candidateTexts(["a", 'q"x'])).toEqual([
      { key: "a", text: '"a"' },
      { key: 'q"x', text: '"q\\"x"' },
      { key: null, text: "null" },
    ]);
  });

  it("asks the model only where candidates diverge", () => {
    const paths = [bytes("get_weather"), bytes("get_time"), bytes(null)];
    const points = branchPoints(paths);
    expect(points.map((p) => String.fromCharCode(...p.prefix))).toEqual(["", '"get_']);
    expect(points[0]!.next.sort()).toEqual([code('"'), code("n")].sort());
  });

  it("sums to 1 over the candidates and matches the chosen-path computation", async () => {
    const paths = [bytes("get_weather"), bytes("get_time"), bytes("set_alarm"), bytes(null)];
    // An arbitrary model: probabilities depend on the prefix, and include tokens the grammar forbids.
    const model = (prefix: readonly number[]) =>
      new Map([
        [code('"'), 0.3 + prefix.length * 0.01],
        [code("n"), 0.05],
        [code("w"), 0.2],
        [code("t"), 0.1],
        [code("g"), 0.15],
        [code("s"), 0.05],
        [code("x"), 0.15], // not a candidate token: dropped by the renormalisation
      ]);
    const d = await choiceDistribution(paths, model);
    expect([...d.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (const p of paths)
      expect(await choiceProbability(paths, p.key, model)).toBeCloseTo(d.get(p.key)!, 12);
    // Decline vs any name at the root: n (0.05) against " (0.3).
    expect(d.get(null)).toBeCloseTo(0.05 / 0.35, 12);
    // get_ vs set_: g 0.15 vs s 0.05; then weather vs time: w 0.2 vs t 0.1.
    expect(d.get("get_weather")).toBeCloseTo((0.3 / 0.35) * (0.15 / 0.2) * (0.2 / 0.3), 12);
  });

  it("is not diluted by forced (structural) tokens: a long shared name prefix changes nothing", async () => {
    const short = [bytes("a"), bytes("b"), bytes(null)];
    const long = [bytes("some_very_long_namespace.a"), bytes("some_very_long_namespace.b"), bytes(null)];
    const model = () =>
      new Map([
        [code('"'), 0.9],
        [code("n"), 0.1],
        [code("a"), 0.6],
        [code("b"), 0.2],
        // every forced character of the long prefix is unlikely; a mean-logprob score would collapse
        [code("s"), 0.001],
      ]);
    const a = await choiceProbability(short, "a", model);
    const b = await choiceProbability(long, "some_very_long_namespace.a", model);
    expect(a).toBeCloseTo(0.9 * 0.75, 12);
    expect(b).toBeCloseTo(a, 12);
  });

  it("is 1 for a forced choice and high when one candidate dominates", async () => {
    expect(await choiceProbability([bytes(null)], null, () => new Map())).toBe(1);
    const paths = [bytes("a"), bytes("b"), bytes(null)];
    const dominant = () =>
      new Map([
        [code('"'), 0.99],
        [code("n"), 0.01],
        [code("a"), 0.98],
        [code("b"), 0.02],
      ]);
    expect(await choiceProbability(paths, "a", dominant)).toBeGreaterThan(0.95);
    expect(await choiceProbability(paths, "zzz", dominant)).toBe(0);
  });

  it("splits evenly when the model gives the diverging tokens no mass", async () => {
    const d = await choiceDistribution([bytes("a"), bytes("b"), bytes(null)], () => new Map());
    expect(d.get(null)).toBeCloseTo(0.5);
    expect(d.get("a")).toBeCloseTo(0.25);
  });
});
