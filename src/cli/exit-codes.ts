/** Exit codes of the `deputy` command, by outcome. */
export const EXIT = {
  completed: 0,
  failed: 1,
  invalid: 2,
  partial: 3,
  escalated: 4,
  /** Stopped by SIGINT/SIGTERM and committed; `deputy resume` continues it (128 + SIGINT, as shells expect). */
  interrupted: 130,
} as const;
