// The accept gate's verdicts, declared below the gate (delegate/) and the records that keep them (traces/, store/).

/** Every verdict the gate can give, in the order it checks them (the first that applies decides). */
export const VERDICTS = [
  "input_too_long",
  "backend_error",
  "declined",
  "unknown_tool",
  "invalid_args",
  "side_effect_denied",
  "unscored",
  "low_confidence",
  "guard_false",
  "accepted",
] as const;

/** The gate's decision about one proposal. */
export type Verdict = (typeof VERDICTS)[number];

/**
 * A verdict and why, in one human-readable sentence: the gate's answer, and the cause of an escalation. A record
 * read back from a store may hold a verdict another version wrote, so it may widen `V` to `string`.
 */
export interface Judgement<V extends string = Verdict> {
  verdict: V;
  reason: string;
}
