import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.RepairError");

/** The codes of {@link RepairError}: why a repair was refused before anything changed. */
export type RepairErrorCode =
  /** The run is not `failed` or `partial` (it completed, is running, paused on an escalation, …). */
  | "RUN_NOT_REPAIRABLE"
  /** No node of the run ended `error` or `blocked` among the tool and delegate nodes. */
  | "NOTHING_ELIGIBLE"
  /** The run's lineage has used the rounds the host allows (`maxRounds`). */
  | "ROUNDS_USED_UP"
  /** No model was configured to write the delta. */
  | "NO_MODEL"
  /** Another process holds the run (a repair, an approval or a resume of it is under way). */
  | "REPAIR_IN_PROGRESS"
  /** A valid delta already awaits a decision: approve or reject it first. */
  | "REPAIR_PENDING"
  /** The run was already repaired: its child run is the one to repair now. */
  | "ALREADY_REPAIRED"
  /** There is no repair of that id, or none awaiting a decision. */
  | "NO_PENDING_REPAIR";

/**
 * A repair of a run was refused, and nothing was changed: the run is in the wrong state, nothing is eligible,
 * the rounds are used up, no model is configured, or another repair holds it. What the model answered is never
 * this error: a bad delta is a list of issues (see `repairRun`).
 */
export class RepairError extends DeputyError<RepairErrorCode> {
  readonly runId: string;

  constructor(code: RepairErrorCode, message: string, options: { runId: string; cause?: unknown }) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    markError(this, marker);
    this.runId = options.runId;
  }

  /** True for a RepairError from this copy of the package or another. */
  static override isInstance(error: unknown): error is RepairError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { runId: this.runId } };
  }
}
