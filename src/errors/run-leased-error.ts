import { isMarked, markError } from "./deputy-error.js";
import { RunError } from "./run-error.js";

const marker = Symbol.for("deputy.error.RunLeasedError");

/** The owner that holds a run (ISO times), as {@link RunLeasedError} reports it. */
export interface LeaseHolder {
  owner: string;
  heartbeatAt: string;
  expiresAt: string;
}

/**
 * Another process owns the run: its lease has not lapsed. Wait for it (`--wait`), or, if that process died,
 * until the lease lapses at `holder.expiresAt`. Code `RUN_LEASED`.
 */
export class RunLeasedError extends RunError {
  readonly holder: LeaseHolder;

  constructor(runId: string, holder: LeaseHolder) {
    const left = Math.max(0, Math.ceil((Date.parse(holder.expiresAt) - Date.now()) / 1000));
    super(
      "RUN_LEASED",
      `Run ${runId} is owned by ${holder.owner} (last heartbeat ${holder.heartbeatAt}); its lease lapses in ${left}s unless renewed. Wait with --wait, or resume after the owner stops.`,
      { runId },
    );
    markError(this, marker);
    this.holder = holder;
  }

  /** True for a RunLeasedError from this copy of the package or another. */
  static override isInstance(error: unknown): error is RunLeasedError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { runId: this.runId, holder: this.holder } };
  }
}
