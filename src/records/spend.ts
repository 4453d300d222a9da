// What deciding or delegating cost, declared below every layer that keeps it: a run's manifest and stored pages
// (store/), an agent's ledgers (agents/), an escalate_to agent's answer and a delegate unit's details (delegate/).

/** Calls, tokens, USD and seconds spent. */
export interface Spend {
  calls: number;
  tokens: number;
  cost: number;
  duration: number;
}
