import { describe, expect, it } from "vitest";
import { checkBudget, effectiveTimeout, mergeBudgets, normalizeBudget } from "./budget.js";

const where = { scope: "delegation" as const, agent: "A", tool: "t" };

describe("normalizeBudget", () => {
  it("accepts every documented key", () => {
    const budget = {
      maxCalls: 6,
      maxTokens: 20_000,
      maxCost: 0.05,
      maxDuration: 45,
      timeout: 10,
      onExceeded: "raise",
      rates: { input: 0.15, output: 0.6 },
    };
    expect(normalizeBudget(budget)).toEqual(budget);
    expect(normalizeBudget(undefined)).toEqual({});
  });

  it("rejects an unknown key, listing the valid ones with a did-you-mean", () => {
    expect(() => normalizeBudget({ max_calls: 1 })).toThrowError(
      /budget\.max_calls.*one of maxCalls, maxTokens, maxCost, maxDuration, timeout, onExceeded, rates; did you mean `maxCalls`/,
    );
    expect(() => normalizeBudget({ retries: 1 })).toThrowError(/one of maxCalls, maxTokens/);
  });

  it("rejects an unknown policy, listing the valid ones", () => {
    expect(() => normalizeBudget({ onExceeded: "ignore" })).toThrowError(
      /onExceeded.*"stop", "raise".*"ignore"/,
    );
  });

  it("rejects negative, fractional counts and malformed rates", () => {
    expect(() => normalizeBudget({ maxCalls: 1.5 })).toThrowError(/maxCalls.*non-negative integer/);
    expect(() => normalizeBudget({ maxCost: -1 })).toThrowError(/maxCost/);
    expect(() => normalizeBudget({ rates: { input: 1 } })).toThrowError(/rates\.output/);
    expect(() => normalizeBudget({ rates: { input: 1, output: 2, cached: 1 } })).toThrowError(
      /input, output/,
    );
    expect(() => normalizeBudget(5)).toThrowError(/budget object/);
  });
});

describe("mergeBudgets", () => {
  it("lets the override win key by key without mutating either side", () => {
    const contract = { maxCalls: 2, timeout: 5 };
    const site = { timeout: 10, maxTokens: 100 };
    expect(mergeBudgets(contract, site)).toEqual({ maxCalls: 2, timeout: 10, maxTokens: 100 });
    expect(contract).toEqual({ maxCalls: 2, timeout: 5 });
  });
});

describe("checkBudget", () => {
  const spent = { calls: 1, tokens: 500, cost: 0.01, duration: 3 };
  it("refuses once used reaches allowed (checked before the call)", () => {
    expect(checkBudget({ maxCalls: 1 }, spent, where)).toEqual({
      limit: "max_calls",
      allowed: 1,
      used: 1,
      ...where,
    });
    expect(checkBudget({ maxCalls: 2 }, spent, where)).toBeUndefined();
    expect(checkBudget({ maxTokens: 500 }, spent, where)?.limit).toBe("max_tokens");
    expect(checkBudget({ maxCost: 0.01 }, spent, where)?.limit).toBe("max_cost");
    expect(checkBudget({ maxDuration: 2 }, spent, where)).toMatchObject({
      limit: "max_duration",
      allowed: 2,
      used: 3,
    });
    expect(checkBudget({}, spent, where)).toBeUndefined();
  });

  it("reports limits in a fixed order: calls, tokens, cost, duration", () => {
    expect(checkBudget({ maxDuration: 1, maxCalls: 1 }, spent, where)?.limit).toBe("max_calls");
  });

  it("takes the smallest timeout that applies", () => {
    expect(effectiveTimeout(10, undefined, 4)).toBe(4);
    expect(effectiveTimeout(undefined)).toBeUndefined();
  });
});
