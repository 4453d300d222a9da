import type { PlanRunEvent } from "../../compose/start-plan.js";
import type { RunStore } from "../../store/run-store.js";
import { shown } from "./shown.js";

/** One message of a run's live stream (a server-sent event). */
export interface LiveMessage {
  /** `change`: the run's stored state changed; `run-event`: an event of a resume this console runs. */
  event: "change" | "run-event";
  data: string;
}

/**
 * What a run page follows live. A run this console resumes hands its events here as they happen; any other run —
 * one `deputy run` or `deputy resume` drives in another process, a worker's — is followed through the store:
 * its header, node statuses and item counts are read every `intervalMs` and a change is told at once.
 */
export class LiveRuns {
  readonly #store: RunStore;
  readonly #intervalMs: number;
  readonly #listeners = new Map<string, Set<(event: PlanRunEvent) => void>>();
  readonly #closed = new AbortController();

  constructor(store: RunStore, intervalMs = 400) {
    this.#store = store;
    this.#intervalMs = intervalMs;
  }

  /** An event of a run this console resumes (already redacted by the run's stream). */
  publish(event: PlanRunEvent): void {
    for (const listener of this.#listeners.get(event.runId) ?? []) listener(event);
  }

  /** The run's live messages until `signal` aborts, the run disappears or the console closes. */
  async *follow(runId: string, signal: AbortSignal): AsyncGenerator<LiveMessage> {
    const queue: PlanRunEvent[] = [];
    let wake: (() => void) | undefined;
    const listener = (event: PlanRunEvent) => {
      queue.push(event);
      wake?.();
    };
    const listeners = this.#listeners.get(runId) ?? new Set();
    this.#listeners.set(runId, listeners.add(listener));
    const stop = AbortSignal.any([signal, this.#closed.signal]);
    const onStop = () => wake?.();
    stop.addEventListener("abort", onStop);
    try {
      let last = await this.#signature(runId);
      if (last === undefined) return;
      while (!stop.aborted) {
        if (queue.length === 0)
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, this.#intervalMs).unref();
          });
        wake = undefined;
        if (stop.aborted) break;
        for (const event of queue.splice(0)) yield { event: "run-event", data: JSON.stringify(shown(event)) };
        const now = await this.#signature(runId);
        if (now?.key !== last.key) {
          if (now === undefined) break;
          last = now;
          yield { event: "change", data: JSON.stringify({ status: now.status }) };
        }
      }
    } finally {
      stop.removeEventListener("abort", onStop);
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(runId);
    }
  }

  /** Ends every stream (before the store closes). */
  close(): void {
    this.#closed.abort();
  }

  /** What a page shows of the run, as text to compare: its status, and each node's status and item counts. */
  async #signature(runId: string): Promise<{ key: string; status: string } | undefined> {
    const summary = await this.#store.loadSummary(runId).catch(() => undefined);
    if (!summary) return undefined;
    const { status, updatedAt } = summary.run;
    const nodes = Object.entries(summary.nodes).map(([id, n]) => [id, n.status, n.items]);
    return { key: JSON.stringify({ status, updatedAt, nodes }), status };
  }
}
