import { applyMutations, type RunMutation, type RunStore } from "./run-store.js";
import type { RunRecord, StoredRun } from "./run-state.js";
import { RunError } from "../errors/run-error.js";
import { dataMap } from "../runtime/own.js";

/** Keeps runs in memory: for tests and for runs that need no durability (`--no-store`). */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();
  #closed = false;

  async createRun(run: RunRecord): Promise<void> {
    this.#assertOpen();
    if (this.#runs.has(run.runId)) throw new RunError("RUN_EXISTS", `Run ${run.runId} already exists.`);
    this.#runs.set(run.runId, { run, artifacts: dataMap(), nodes: dataMap(), items: dataMap() });
  }

  async write(runId: string, batch: RunMutation[]): Promise<void> {
    this.#assertOpen();
    const state = this.#runs.get(runId);
    if (!state) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    applyMutations(state, batch);
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    this.#assertOpen();
    const state = this.#runs.get(runId);
    // A deep copy, so a caller holding it sees a snapshot, as with a durable store.
    return state && structuredClone(state);
  }

  async list(options: { limit?: number } = {}): Promise<RunRecord[]> {
    this.#assertOpen();
    return [...this.#runs.values()]
      .map((s) => s.run)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, options.limit ?? Infinity);
  }

  /** Refuses every later call (`STORE_CLOSED`), like a durable store. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new RunError("STORE_CLOSED", "The in-memory run store is closed.");
  }
}
