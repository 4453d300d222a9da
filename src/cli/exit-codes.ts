import {
  AgentDefinitionError,
  DistilledModelError,
  ExpressionError,
  InputFileError,
  InvalidOptionError,
  McpSourceError,
  ModelFetchError,
  PlanValidationError,
  RepairError,
  RunError,
  ToolError,
  type RunErrorCode,
} from "../errors/index.js";

/** Exit codes of the `deputy` command, by outcome. */
export const EXIT = {
  completed: 0,
  failed: 1,
  invalid: 2,
  partial: 3,
  escalated: 4,
  /** Stopped by SIGINT/SIGTERM and committed; `deputy resume` continues it (128 + SIGINT, as shells expect). */
  interrupted: 130,
  /** Another process owns the run (its lease has not lapsed); `--wait` waits for it instead. */
  leased: 5,
} as const;

/** Which run errors are the user's input (a run id, a plan, a resolution) rather than a failure. */
const RUN_ERROR_EXIT: Record<RunErrorCode, number> = {
  RUN_NOT_FOUND: EXIT.invalid,
  PLAN_FINGERPRINT_CHANGED: EXIT.invalid,
  TOOLS_CHANGED: EXIT.invalid,
  RESOLUTION_INVALID: EXIT.invalid,
  RUN_EXISTS: EXIT.failed,
  STORE_CLOSED: EXIT.failed,
  STORE_UNAVAILABLE: EXIT.invalid, // locked by another process at start: nothing was run
  SQLITE_UNAVAILABLE: EXIT.failed,
  STORE_UNREACHABLE: EXIT.failed,
  RESUME_RUNNING: EXIT.failed,
  RESUME_INVALID: EXIT.invalid,
  STORE_NOT_FOUND: EXIT.invalid,
  RUN_LEASED: EXIT.leased,
  LEASE_LOST: EXIT.failed,
  LEASE_INVALID: EXIT.invalid,
  UNIT_HANDED_BACK: EXIT.failed,
  RUN_AWAITS_APPROVAL: EXIT.invalid,
};

/**
 * The exit code for an error that ended a command, by its class: bad input (an option, a plan, a file, a tool,
 * an expression, an agent or model definition, a model to fetch, a run id or resolution that does not fit, a
 * refused repair) exits 2, anything else 1.
 */
export function exitCodeOf(error: unknown): number {
  if (
    InvalidOptionError.isInstance(error) ||
    PlanValidationError.isInstance(error) ||
    InputFileError.isInstance(error) ||
    AgentDefinitionError.isInstance(error) ||
    DistilledModelError.isInstance(error) ||
    ModelFetchError.isInstance(error) || // a model that cannot be fetched: unknown, or no network
    ExpressionError.isInstance(error) ||
    McpSourceError.isInstance(error) || // a --tools mcp:… server that cannot be started, reached or used
    RepairError.isInstance(error) || // a repair refused (wrong state, nothing eligible, rounds used up, …): nothing changed
    ToolError.isInstance(error) // thrown while setting up: an unknown or duplicate tool, arguments that do not fit
  ) {
    return EXIT.invalid;
  }
  if (RunError.isInstance(error)) return RUN_ERROR_EXIT[error.code] ?? EXIT.failed;
  return EXIT.failed;
}
