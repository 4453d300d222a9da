import { deadline } from "./deadline.js";
import { isPromiseLike, raceAbort, raceAbortThen } from "./race-abort.js";
import { sleep } from "./sleep.js";

/** Options of {@link retryWithDeadline}. */
export interface RetryOptions {
  /** Attempts in all (≥ 1). */
  attempts: number;
  /** Pause before the second attempt, doubled before each later one. Default 0 (none). */
  backoffMs?: number;
  /** Time allowed per attempt. Default: none. */
  timeoutMs?: number;
  /** Aborts everything: the running attempt is abandoned and no other starts. */
  signal: AbortSignal;
  /** The abort reason of an attempt that ran out of time. Default: a `TimeoutError` DOMException. */
  timeoutReason?: () => unknown;
}

/** How {@link retryWithDeadline} ended. */
export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | {
      ok: false;
      /** What the last attempt threw (the abort reason when `aborted`). */
      error: unknown;
      attempts: number;
      /** The last attempt ran out of time. */
      timedOut: boolean;
      /** The outer signal aborted. */
      aborted: boolean;
    };

/**
 * Runs `attempt` up to `attempts` times with exponential backoff, each attempt under its own deadline (the
 * attempt gets a signal that fires on its timeout or on the outer abort; an attempt that ignores it is
 * abandoned when it fires). A synchronous result costs no extra turn. Never rejects.
 */
export function retryWithDeadline<T>(
  options: RetryOptions,
  attempt: (n: number, signal: AbortSignal) => T | PromiseLike<T>,
): Promise<RetryOutcome<T>> {
  // The common case (one attempt, no timeout) needs no deadline: the outer signal is the attempt's.
  if (options.attempts === 1 && options.timeoutMs === undefined) return once(options.signal, attempt);
  return withRetries(options, attempt);
}

async function withRetries<T>(
  options: RetryOptions,
  attempt: (n: number, signal: AbortSignal) => T | PromiseLike<T>,
): Promise<RetryOutcome<T>> {
  const { signal } = options;
  let last: RetryOutcome<T> = { ok: false, error: undefined, attempts: 0, timedOut: false, aborted: false };
  for (let n = 1; n <= options.attempts; n++) {
    if (signal.aborted) return aborted(signal, n - 1);
    const limit = deadline(signal, options.timeoutMs, { reason: options.timeoutReason });
    try {
      const result = attempt(n, limit.signal);
      const value = isPromiseLike(result) ? await raceAbort(result, limit.signal) : result;
      return { ok: true, value: value as T, attempts: n };
    } catch (error) {
      if (signal.aborted) return aborted(signal, n);
      last = { ok: false, error, attempts: n, timedOut: limit.expired(), aborted: false };
    } finally {
      limit.clear();
    }
    if (n < options.attempts && options.backoffMs) await sleep(options.backoffMs * 2 ** (n - 1), signal);
  }
  return last;
}

/** One attempt under the outer signal: no async frame of its own, and one promise around the attempt's. */
function once<T>(
  signal: AbortSignal,
  attempt: (n: number, signal: AbortSignal) => T | PromiseLike<T>,
): Promise<RetryOutcome<T>> {
  if (signal.aborted) return Promise.resolve(aborted(signal, 0));
  let result: T | PromiseLike<T>;
  try {
    result = attempt(1, signal);
  } catch (error) {
    return Promise.resolve(failedOnce(error, signal));
  }
  if (!isPromiseLike(result)) return Promise.resolve({ ok: true, value: result, attempts: 1 });
  return raceAbortThen(result as PromiseLike<T>, signal, succeededOnce<T>, failedOnce<T>);
}

function succeededOnce<T>(value: T): RetryOutcome<T> {
  return { ok: true, value, attempts: 1 };
}

function failedOnce<T>(error: unknown, signal: AbortSignal): RetryOutcome<T> {
  return signal.aborted
    ? aborted(signal, 1)
    : { ok: false, error, attempts: 1, timedOut: false, aborted: false };
}

function aborted<T>(signal: AbortSignal, attempts: number): RetryOutcome<T> {
  return { ok: false, error: signal.reason, attempts, timedOut: false, aborted: true };
}
