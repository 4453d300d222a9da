// One abort listener per signal, however many calls wait on it: thousands of in-flight items share the run's
// signal, and an EventTarget listener each would cost more than the items themselves.
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts (the promise is then
 * abandoned; its own rejection is swallowed).
 */
export function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.then(undefined, () => {}); // the work's own rejection is expected now; never leave it unhandled
    return Promise.reject(signal.reason);
  }
  let set = waiters.get(signal);
  if (!set) {
    const created = new Set<(reason: unknown) => void>();
    waiters.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const reject of created) reject(signal.reason);
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  const pending = set;
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

/** True for anything with a `then` method. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
