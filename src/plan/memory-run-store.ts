import {
  applyMutations,
  pageItems,
  type ItemPage,
  type ItemPageOptions,
  type RunMutation,
  type RunStore,
  type RunSummary,
} from "./run-store.js";
import type { RunRecord, StoredRun } from "./run-state.js";
import { RunError } from "../errors/run-error.js";

/** Keeps runs in memory: for tests and for runs that need no durability (`--no-store`). */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();

  async createRun(run: RunRecord): Promise<void> {
    if (this.#runs.has(run.runId)) throw new RunError("RUN_EXISTS", `Run ${run.runId} already exists.`);
    this.#runs.set(run.runId, { run, artifacts: {}, nodes: {}, items: {} });
  }

  async write(runId: string, batch: RunMutation[]): Promise<void> {
    const state = this.#runs.get(runId);
    if (!state) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    applyMutations(state, batch);
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    const state = this.#runs.get(runId);
    // A deep copy, so a caller holding it sees a snapshot, as with a durable store.
    return state && structuredClone(state);
  }

  async list(options: { limit?: number } = {}): Promise<RunRecord[]> {
    return [...this.#runs.values()]
      .map((s) => s.run)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, options.limit ?? Infinity);
  }

  async loadSummary(runId: string): Promise<RunSummary | undefined> {
    const state = this.#runs.get(runId);
    if (!state) return undefined;
    const itemKeys = new Set<string>();
    for (const items of Object.values(state.items))
      for (const item of Object.values(items)) if (item.key !== undefined) itemKeys.add(item.key);
    const artifacts = Object.fromEntries(Object.entries(state.artifacts).filter(([k]) => !itemKeys.has(k)));
    return structuredClone({ run: state.run, nodes: state.nodes, artifacts });
  }

  async listItems(runId: string, nodeId: string, options?: ItemPageOptions): Promise<ItemPage> {
    const state = this.#runs.get(runId);
    if (!state) throw new RunError("RUN_NOT_FOUND", `No run ${runId} in this store.`, { runId });
    return structuredClone(pageItems(state, nodeId, options));
  }

  async close(): Promise<void> {}
}
