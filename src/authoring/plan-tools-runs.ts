import type { RunManifest } from "../plan/run-manifest.js";
import {
  manifestAnswer,
  refusal,
  refusalOf,
  summaryAnswer,
  type PlanToolRefusal,
  type RunAnswer,
} from "./plan-tools-answers.js";
import type { RunStore } from "../store/run-store.js";

/**
 * The runs a plan toolkit started and that may still be going on: a tool call waits for its run up to the soft
 * timeout, then answers with the run's id and where it stands, and the run goes on here in the background.
 */
export class BackgroundRuns {
  readonly #active = new Map<string, Promise<void>>();
  /** Why a run that went on in the background could not end as a run (the store failed…), by run id. */
  readonly #failures = new Map<string, PlanToolRefusal>();
  readonly #store: RunStore;
  readonly #softTimeoutMs: number;
  readonly #maxChars: number;

  constructor(store: RunStore, softTimeoutMs: number, maxChars: number) {
    this.#store = store;
    this.#softTimeoutMs = softTimeoutMs;
    this.#maxChars = maxChars;
  }

  /** True while a run this toolkit started (or resumed) goes on in this process. */
  has(runId: string): boolean {
    return this.#active.has(runId);
  }

  /** Why a background run of this id ended without a manifest, if it did. */
  failure(runId: string): PlanToolRefusal | undefined {
    return this.#failures.get(runId);
  }

  /**
   * Starts `run` (which must run `runId`) and answers with its manifest when it ends within the soft timeout,
   * else with its stored summary so far (`done: false`). A run that throws answers as a refusal.
   */
  async start(
    runId: string,
    returns: string | undefined,
    run: () => Promise<RunManifest>,
  ): Promise<RunAnswer | PlanToolRefusal> {
    this.#failures.delete(runId);
    let settled: { manifest: RunManifest } | { error: unknown } | undefined;
    const going = run().then(
      (manifest) => void (settled = { manifest }),
      (error: unknown) => void (settled = { error }),
    );
    const tracked = going.finally(() => {
      this.#active.delete(runId);
      if (settled && "error" in settled) this.#failures.set(runId, refusalOf(settled.error));
    });
    this.#active.set(runId, tracked);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#softTimeoutMs);
      // The run itself keeps a process alive while it works; the wait for it must not.
      timer.unref();
    });
    await Promise.race([going, waited]);
    clearTimeout(timer);
    const outcome = settled as { manifest: RunManifest } | { error: unknown } | undefined;
    if (outcome && "manifest" in outcome) return manifestAnswer(outcome.manifest, returns, this.#maxChars);
    if (outcome) return refusalOf(outcome.error);
    return this.answerFor(runId, true);
  }

  /**
   * Where a run stands, read from the store: what a run going on in the background has checkpointed so far, or
   * how one ended. A run this process has not yet written reads as just started.
   */
  async answerFor(runId: string, starting = false): Promise<RunAnswer | PlanToolRefusal> {
    const summary = await this.#store.loadSummary(runId);
    if (!summary) {
      if (starting || this.has(runId))
        return {
          run_id: runId,
          plan: "",
          status: "running",
          done: false,
          nodes: {},
          artifact_keys: [],
          message:
            "The run is starting in the background. Call plan_status with this run_id later; do not start it again.",
        };
      return this.failure(runId) ?? refusal("run_not_found", `No run "${runId}" in the store.`);
    }
    return summaryAnswer(summary, this.#maxChars);
  }

  /** Resolves once every run going on in the background has ended. */
  async settle(): Promise<void> {
    while (this.#active.size > 0) await Promise.all([...this.#active.values()]);
  }
}
