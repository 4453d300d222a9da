import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { Usage } from "./usage.js";

/** Token prices in USD per one million tokens. */
export interface Rates {
  input: number;
  output: number;
}

interface Entry {
  pattern: string | RegExp;
  rates: Rates;
  order: number;
}

const entries: Entry[] = [];
let registrations = 0;

/** Checks that `rates` is `{ input, output }` with non-negative finite numbers. */
export function checkRates(rates: unknown, option = "rates"): Rates {
  const r = rates as Partial<Rates> | null;
  if (typeof r !== "object" || r === null)
    throw new InvalidOptionError(option, "`{ input, output }` in USD per 1M tokens", rates);
  for (const key of ["input", "output"] as const) {
    const value = r[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new InvalidOptionError(`${option}.${key}`, "a non-negative number (USD per 1M tokens)", value);
    }
  }
  const extra = Object.keys(r).filter((k) => k !== "input" && k !== "output");
  if (extra.length > 0)
    throw new InvalidOptionError(`${option}`, "`{ input, output }` only", `keys ${extra.join(", ")}`);
  return { input: r.input!, output: r.output! };
}

/**
 * The token price list. deputy ships no prices (they change faster than releases; a stale table silently
 * under-reports): register what you pay. A model with no known rate costs 0 — never a guess.
 *
 * @example
 * Pricing.register("gpt-4o-mini", { input: 0.15, output: 0.6 }); // also matches "gpt-4o-mini-2024-07-18"
 * Pricing.register(/^claude-haiku/, { input: 1, output: 5 });
 */
export const Pricing = {
  /**
   * Registers rates for models whose id starts with `pattern` (a string) or matches it (a RegExp).
   * When several match, the most specific wins: the longest string prefix (a RegExp counts as its source's
   * length), then the latest registration.
   */
  register(pattern: string | RegExp, rates: Rates): void {
    if (!(typeof pattern === "string" && pattern.length > 0) && !(pattern instanceof RegExp)) {
      throw new InvalidOptionError("pattern", "a non-empty string prefix or a RegExp", pattern);
    }
    entries.push({ pattern, rates: checkRates(rates), order: registrations++ });
  },

  /** The rates registered for `modelId`, or `undefined`. */
  lookup(modelId: string): Rates | undefined {
    let best: Entry | undefined;
    let bestScore = -1;
    for (const entry of entries) {
      const { pattern } = entry;
      const matches =
        typeof pattern === "string"
          ? modelId.startsWith(pattern)
          : new RegExp(pattern.source, pattern.flags.replace("g", "")).test(modelId);
      if (!matches) continue;
      const score = typeof pattern === "string" ? pattern.length : pattern.source.length;
      if (score > bestScore || (score === bestScore && entry.order > (best?.order ?? -1))) {
        best = entry;
        bestScore = score;
      }
    }
    return best?.rates;
  },

  /** Forgets every registration (for tests). */
  clear(): void {
    entries.length = 0;
  },
};

/**
 * The USD cost of `usage`: `(input·in + output·out) / 1e6`. `inline` rates win over the registry; with no rate
 * known the cost is 0.
 */
export function costOf(usage: Usage, modelId: string, inline?: Rates): number {
  const rates = inline ?? Pricing.lookup(modelId);
  if (!rates) return 0;
  return (usage.inputTokens * rates.input + usage.outputTokens * rates.output) / 1e6;
}
