import { afterEach, describe, expect, it } from "vitest";
import { costOf, Pricing } from "./pricing.js";

const usage = { inputTokens: 1_000_000, outputTokens: 500_000, totalTokens: 1_500_000 };

describe("Pricing", () => {
  afterEach(() => Pricing.clear());

  it("matches strings by prefix", () => {
    Pricing.register("gpt-4o-mini", { input: 0.15, output: 0.6 });
    expect(Pricing.lookup("gpt-4o-mini-2024-07-18")).toEqual({ input: 0.15, output: 0.6 });
    expect(Pricing.lookup("gpt-4o")).toBeUndefined();
  });

  it("matches regexes by match", () => {
    Pricing.register(/^claude-haiku/, { input: 1, output: 5 });
    expect(Pricing.lookup("claude-haiku-4-5")).toEqual({ input: 1, output: 5 });
    expect(Pricing.lookup("my-claude-haiku")).toBeUndefined();
  });

  it("picks the most specific match: the longest prefix, then the latest registration", () => {
    Pricing.register("gpt-4o", { input: 2.5, output: 10 });
    Pricing.register("gpt-4o-mini", { input: 0.15, output: 0.6 });
    Pricing.register("gpt", { input: 99, output: 99 });
    expect(Pricing.lookup("gpt-4o-mini-2024")?.input).toBe(0.15);
    expect(Pricing.lookup("gpt-4o-2024")?.input).toBe(2.5);
    Pricing.register("gpt-4o", { input: 3, output: 12 });
    expect(Pricing.lookup("gpt-4o-2024")?.input).toBe(3);
  });

  it("computes (input·in + output·out) / 1e6; inline rates win; unknown models cost 0", () => {
    Pricing.register("m", { input: 1, output: 2 });
    expect(costOf(usage, "m-1")).toBe(2);
    expect(costOf(usage, "m-1", { input: 0.15, output: 0.6 })).toBeCloseTo(0.45, 12);
    expect(costOf(usage, "unknown-model")).toBe(0);
  });

  it("rejects malformed rates and patterns", () => {
    expect(() => Pricing.register("", { input: 1, output: 1 })).toThrowError(/pattern/);
    expect(() => Pricing.register("x", { input: -1, output: 1 })).toThrowError(/rates\.input/);
  });
});
