/** A signal that aborts when its parent does or when its time is up; clear it when the work ends. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True once the time ran out (not when the parent aborted). */
  expired(): boolean;
  /** Stops the timer; call it when the work ends, whatever the outcome. */
  clear(): void;
}

/** Options of {@link deadline}. */
export interface DeadlineOptions {
  /** The abort reason when the time runs out. Default: a `TimeoutError` DOMException. */
  reason?: () => unknown;
  /** Let the process exit while the timer is pending. Default `false`. */
  unref?: boolean;
}

/**
 * The one deadline helper for every timer in deputy: a signal that aborts when `parent` aborts or after `ms`
 * milliseconds (`undefined`: never). It uses a timer it owns rather than `AbortSignal.timeout` inside
 * `AbortSignal.any`, which can be garbage-collected before it fires (nodejs/node#57736) and then a hung call
 * would hang forever.
 *
 * @example
 * const d = deadline(unit.signal, 5_000);
 * try { await fetch(url, { signal: d.signal }); } finally { d.clear(); }
 */
export function deadline(
  parent: AbortSignal | undefined,
  ms: number | undefined,
  options: DeadlineOptions = {},
): Deadline {
  if (ms === undefined) {
    const signal = parent ?? new AbortController().signal;
    return { signal, expired: () => false, clear: () => {} };
  }
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(options.reason?.() ?? new DOMException(`timed out after ${ms} ms`, "TimeoutError"));
  }, ms);
  if (options.unref) timer.unref();
  const signal = parent ? AbortSignal.any([parent, controller.signal]) : controller.signal;
  return { signal, expired: () => fired, clear: () => clearTimeout(timer) };
}
