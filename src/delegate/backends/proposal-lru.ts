import type { Proposal } from "../protocol.js";

/** A least-recently-used map of proposals by key (a `Map` keeps insertion order: the first key is the oldest). */
export class ProposalLru {
  readonly #entries = new Map<string, Omit<Proposal, "latencyMs">>();
  /** Proposals being asked for, by key: an equal request made meanwhile waits for it instead of asking again. */
  readonly inflight = new Map<string, Promise<Proposal>>();

  constructor(readonly maxEntries: number) {}

  get(key: string): Omit<Proposal, "latencyMs"> | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, proposal: Omit<Proposal, "latencyMs">): void {
    this.#entries.delete(key);
    this.#entries.set(key, structuredClone(proposal));
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}
