/**
 * The clock every part reads, injectable through `_internal.now` so tests are deterministic: the current time
 * as a `Date`.
 */
export type Clock = () => Date;

/** The real clock. */
export const systemClock: Clock = () => new Date();
