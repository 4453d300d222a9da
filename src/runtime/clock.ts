/**
 * The one clock type of deputy, injectable as `_internal.now` wherever time is read (runs, agents, training) so
 * tests are deterministic: milliseconds since the Unix epoch. Durations are differences of two readings.
 */
export type Clock = () => number;

/** The real clock: epoch milliseconds with sub-millisecond precision, steady while the process runs. */
export const systemClock: Clock = () => performance.timeOrigin + performance.now();
