import { claimResume } from "../../compose/resume-setup.js";
import type { PlanRunEvent } from "../../compose/start-plan.js";
import { serializeError, type SerializedError } from "../../errors/deputy-error.js";
import { RunError } from "../../errors/run-error.js";
import type { RunStore } from "../../store/run-store.js";
import type { RunStatus } from "../../store/run-state.js";
import type { RunToolLoader } from "./run-tool-loader.js";

/** Where a resume started from the console stands. */
export interface ResumeState {
  state: "running" | "done" | "failed";
  startedAt: string;
  endedAt?: string;
  /** The run's status when the resume ended. */
  status?: RunStatus;
  error?: SerializedError;
}

/**
 * Resumes runs in this process with `deputy resume`'s own set-up (the run's lease; its tools module — or the
 * console's `--tools` —, delegates, trace file and plan; a distributed run on its workers), one resume per run at a
 * time. Progress is read from the store like any run's.
 */
export class ResumeRunner {
  readonly #store: RunStore;
  readonly #catalog: RunToolLoader;
  readonly #states = new Map<string, ResumeState>();
  readonly #running = new Set<Promise<void>>();
  readonly #watch: ((event: PlanRunEvent) => void) | undefined;

  /** `watch`: told each event of the resumes started here (the console's live pages). */
  constructor(store: RunStore, catalog: RunToolLoader, watch?: (event: PlanRunEvent) => void) {
    this.#store = store;
    this.#catalog = catalog;
    this.#watch = watch;
  }

  /** The state of the last resume of a run started here, if any. */
  get(runId: string): ResumeState | undefined {
    return this.#states.get(runId);
  }

  /**
   * Starts resuming a run with the set-up `deputy resume` uses ({@link claimResume}): the run's lease is taken
   * before this answers, so a run another process (or this console) owns is refused at once, as the CLI refuses
   * it (`RUN_LEASED`); a distributed run's units go to its workers again. Refused too when the run is completed.
   */
  async start(runId: string): Promise<ResumeState> {
    if (this.#states.get(runId)?.state === "running")
      throw new RunError("RESUME_RUNNING", `Run ${runId} is already being resumed.`, { runId });
    const summary = await this.#store.loadSummary(runId);
    if (!summary) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
    if (summary.run.status === "completed")
      throw new RunError("RESUME_INVALID", `Run ${runId} is completed; nothing to resume.`, { runId });
    const claimed = await claimResume(this.#store, runId);
    const state: ResumeState = { state: "running", startedAt: new Date().toISOString() };
    this.#states.set(runId, state);
    const done = (async () => {
      try {
        const manifest = await claimed.resume({
          tools: this.#catalog.pathFor(claimed.run),
          ...(this.#watch ? { watch: this.#watch } : {}),
        });
        Object.assign(state, { state: "done", status: manifest.status });
      } catch (error) {
        Object.assign(state, { state: "failed", error: serializeError(error) });
      }
      state.endedAt = new Date().toISOString();
    })();
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
    return state;
  }

  /** Waits for the resumes in flight (on shutdown, before the store closes). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}
