/** Exit codes of the `deputy` command, by outcome. */
export const EXIT = {
  completed: 0,
  failed: 1,
  invalid: 2,
  partial: 3,
  escalated: 4,
} as const;
