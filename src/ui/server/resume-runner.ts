import { setupRun } from "../../cli/run-setup.js";
import { serializeError, type SerializedError } from "../../errors/deputy-error.js";
import { RunError } from "../../errors/run-error.js";
import { resumeRun } from "../../index.js";
import type { RunStore } from "../../store/run-store.js";
import type { RunStatus } from "../../store/run-state.js";
import type { ToolCatalog } from "./tool-catalog.js";

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
 * Resumes runs in this process, as `deputy resume` does (the run's tools module — or the console's `--tools` —,
 * delegates and trace file), one resume per run at a time. Progress is read from the store like any run's.
 */
export class ResumeRunner {
  readonly #store: RunStore;
  readonly #catalog: ToolCatalog;
  readonly #states = new Map<string, ResumeState>();
  readonly #running = new Set<Promise<void>>();

  constructor(store: RunStore, catalog: ToolCatalog) {
    this.#store = store;
    this.#catalog = catalog;
  }

  /** The state of the last resume of a run started here, if any. */
  get(runId: string): ResumeState | undefined {
    return this.#states.get(runId);
  }

  /** Starts resuming a run; refused while one is already running, or when the run needs no resume. */
  async start(runId: string): Promise<ResumeState> {
    if (this.#states.get(runId)?.state === "running")
      throw new RunError("RESUME_RUNNING", `Run ${runId} is already being resumed.`, { runId });
    const summary = await this.#store.loadSummary(runId);
    if (!summary) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
    if (summary.run.status === "completed" || summary.run.status === "running")
      throw new RunError("RESUME_INVALID", `Run ${runId} is ${summary.run.status}; nothing to resume.`, {
        runId,
      });
    const state: ResumeState = { state: "running", startedAt: new Date().toISOString() };
    this.#states.set(runId, state);
    const meta = summary.run.options;
    const done = (async () => {
      try {
        const { options, close } = await setupRun({
          tools: this.#catalog.pathFor(summary.run),
          delegate: meta.delegates as string[] | undefined,
          traces: meta.traces as string | undefined,
          allowDelegateSideEffects: meta.allowDelegateSideEffects === true,
        });
        try {
          const manifest = await resumeRun(runId, { ...options, store: this.#store });
          Object.assign(state, { state: "done", status: manifest.status });
        } finally {
          await close();
        }
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
