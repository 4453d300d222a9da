// One abort listener per signal, however many calls wait on it: thousands of in-flight items share the run's
// signal, and an EventTarget listener each would cost more than the items themselves.
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

/**
 * The set of callbacks to call when `signal` aborts (one listener on the signal calls them all, then empties the
 * set). A caller that adds one deletes it once it no longer waits.
 */
export function abortWaiters(signal: AbortSignal): Set<(reason: unknown) => void> {
  // The same signal, call after call (a for_each node's items): no WeakMap lookup.
  if (signal === lastSignal) return lastSet!;
  let set = waiters.get(signal);
  if (!set) {
    const created = new Set<(reason: unknown) => void>();
    waiters.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const waiter of created) waiter(signal.reason);
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  lastSignal = signal;
  lastSet = set;
  return set;
}

let lastSignal: AbortSignal | undefined;
let lastSet: Set<(reason: unknown) => void> | undefined;

const ignore = () => {};

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts (the promise is then
 * abandoned; its own rejection is swallowed).
 */
export function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.then(undefined, ignore); // the work's own rejection is expected now; never leave it unhandled
    return Promise.reject(signal.reason);
  }
  const pending = abortWaiters(signal);
  return new Promise<T>((resolve, reject) => {
    pending.add(reject);
    promise.then(
      (v) => {
        pending.delete(reject);
        resolve(v);
      },
      (e) => {
        pending.delete(reject);
        reject(e);
      },
    );
  });
}

/**
 * {@link raceAbort} and a mapping of its outcome in one step (one promise fewer on a hot path): resolves with
 * `onValue(value)` when `promise` fulfils, with `onError(error, signal)` when it rejects, and with
 * `onError(signal.reason, signal)` as soon as `signal` aborts. Never rejects; `onValue` and `onError` must not
 * throw.
 */
export function raceAbortThen<T, R>(
  promise: PromiseLike<T>,
  signal: AbortSignal,
  onValue: (value: T) => R,
  onError: (error: unknown, signal: AbortSignal) => R,
): Promise<R> {
  if (signal.aborted) {
    promise.then(undefined, ignore);
    return Promise.resolve(onError(signal.reason, signal));
  }
  const pending = abortWaiters(signal);
  return new Promise<R>((resolve) => {
    const abort = (reason: unknown) => resolve(onError(reason, signal));
    pending.add(abort);
    promise.then(
      (v) => {
        pending.delete(abort);
        resolve(onValue(v));
      },
      (e) => {
        pending.delete(abort);
        resolve(onError(e, signal));
      },
    );
  });
}

/** True for anything with a `then` method. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
