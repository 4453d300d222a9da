import type { Spend } from "../records/spend.js";

/** A ledger's figures as plain data. `cost` in USD, `duration` in seconds. */
export type LedgerTotals = Spend;

/**
 * What delegations spent during one generation: `{ calls, tokens, cost, duration }`. An agent has one
 * agent-wide ledger and one per delegated tool; nested delegations roll up into every ancestor's ledgers.
 */
export class Ledger {
  calls = 0;
  tokens = 0;
  cost = 0;
  /** Seconds, cumulative over finished calls. */
  duration = 0;

  /** Adds figures to this ledger. */
  add(delta: Partial<LedgerTotals>): void {
    this.calls += delta.calls ?? 0;
    this.tokens += delta.tokens ?? 0;
    this.cost += delta.cost ?? 0;
    this.duration += delta.duration ?? 0;
  }

  /** A copy as plain data (cost rounded to 1e-9 USD, duration to the millisecond, so sums read cleanly). */
  toJSON(): LedgerTotals {
    return {
      calls: this.calls,
      tokens: this.tokens,
      cost: Math.round(this.cost * 1e9) / 1e9,
      duration: Math.round(this.duration * 1000) / 1000,
    };
  }
}
