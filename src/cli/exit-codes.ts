/** Exit codes of the `deputy` command, by outcome. */
export const EXIT = {
  completed: 0,
  failed: 1,
  invalid: 2,
  partial: 3,
  escalated: 4,
  /** Another process owns the run (its lease has not lapsed); `--wait` waits for it instead. */
  leased: 5,
} as const;
