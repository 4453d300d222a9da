import type { Spend } from "../records/spend.js";
import type { BudgetLimit, BudgetViolation } from "../errors/budget-exceeded-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { checkRates, type Rates } from "./pricing.js";

/** What happens when a limit is reached: tell the calling model (`"stop"`), or throw (`"raise"`). */
export type OnExceeded = "stop" | "raise";

/**
 * Limits on delegated work during one generation. Every field is optional; an absent limit does not apply.
 *
 * | key | unit | meaning |
 * |---|---|---|
 * | `maxCalls` | count | delegated invocations |
 * | `maxTokens` | tokens | cumulative tokens the sub-agents spent |
 * | `maxCost` | USD | cumulative spend (needs rates: `rates` or `Pricing.register`) |
 * | `maxDuration` | seconds | cumulative wall-clock across delegated calls |
 * | `timeout` | seconds | wall-clock ceiling of a single call (aborts it) |
 * | `onExceeded` | `"stop"` / `"raise"` | what happens at the ceiling (default `"stop"`) |
 * | `rates` | `{ input, output }` | inline USD per 1M tokens; wins over `Pricing` |
 */
export interface Budget {
  maxCalls?: number;
  maxTokens?: number;
  maxCost?: number;
  maxDuration?: number;
  timeout?: number;
  onExceeded?: OnExceeded;
  rates?: Rates;
}

const NUMERIC = ["maxCalls", "maxTokens", "maxCost", "maxDuration", "timeout"] as const;
const KEYS = [...NUMERIC, "onExceeded", "rates"] as const;
const POLICIES: readonly OnExceeded[] = ["stop", "raise"];

/** The limits checked before each call, in order, with the names the calling model reads. */
export const LIMIT_NAMES = {
  maxCalls: "max_calls",
  maxTokens: "max_tokens",
  maxCost: "max_cost",
  maxDuration: "max_duration",
} as const satisfies Record<string, BudgetLimit>;

/**
 * Validates a budget: unknown keys and policies are errors that list the valid ones (with a did-you-mean, so
 * `max_calls` points at `maxCalls`). Returns a normalised copy (absent keys omitted).
 */
export function normalizeBudget(input: unknown, option = "budget"): Budget {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input))
    throw new InvalidOptionError(option, "a budget object", input);
  const record = input as Record<string, unknown>;
  const out: Budget = {};
  for (const key of Object.keys(record)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const hint = didYouMean(key, KEYS);
      throw new InvalidOptionError(
        `${option}.${key}`,
        `a known budget key (one of ${KEYS.join(", ")}${hint ? `; did you mean \`${hint}\`?` : ""})`,
        key,
      );
    }
    const value = record[key];
    if (value === undefined) continue;
    if ((NUMERIC as readonly string[]).includes(key)) {
      const integer = key === "maxCalls" || key === "maxTokens";
      if (
        typeof value !== "number" ||
        !Number.isFinite(value) ||
        value < 0 ||
        (integer && !Number.isInteger(value))
      ) {
        throw new InvalidOptionError(
          `${option}.${key}`,
          integer ? "a non-negative integer" : "a non-negative number",
          value,
        );
      }
      out[key as (typeof NUMERIC)[number]] = value;
    } else if (key === "onExceeded") {
      if (!POLICIES.includes(value as OnExceeded)) {
        throw new InvalidOptionError(
          `${option}.onExceeded`,
          `one of ${POLICIES.map((p) => `"${p}"`).join(", ")}`,
          value,
        );
      }
      out.onExceeded = value as OnExceeded;
    } else {
      out.rates = checkRates(value, `${option}.rates`);
    }
  }
  return out;
}

/** Key-by-key merge: every key `override` sets wins over `base` (a call site's budget over a contract's). */
export function mergeBudgets(base: Budget | undefined, override: Budget | undefined): Budget {
  return { ...(base ?? {}), ...(override ?? {}) };
}

/** What has been spent against a budget (duration includes a call still in flight). */
export type Spent = Spend;

/** The first limit of `budget` that `spent` has reached, or `undefined` when another call may start. */
export function checkBudget(
  budget: Budget,
  spent: Spent,
  where: Pick<BudgetViolation, "scope" | "agent" | "tool">,
): BudgetViolation | undefined {
  const pairs: [keyof typeof LIMIT_NAMES, number][] = [
    ["maxCalls", spent.calls],
    ["maxTokens", spent.tokens],
    ["maxCost", spent.cost],
    ["maxDuration", spent.duration],
  ];
  for (const [key, used] of pairs) {
    const allowed = budget[key];
    if (allowed !== undefined && used >= allowed) {
      return { limit: LIMIT_NAMES[key], allowed, used: round(used), ...where };
    }
  }
  return undefined;
}

/** The smallest of the timeouts that apply (seconds), or `undefined`. */
export function effectiveTimeout(...timeouts: (number | undefined)[]): number | undefined {
  const set = timeouts.filter((t): t is number => t !== undefined);
  return set.length > 0 ? Math.min(...set) : undefined;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
