/**
 * A fixed set of resources (context sequences) handed out one per caller; callers beyond the pool size wait in
 * FIFO order. Waiting honours an AbortSignal.
 */
export class SequencePool<T> {
  #free: T[];
  #waiters: { resolve: (item: T) => void; reject: (error: unknown) => void }[] = [];
  #closed: Error | undefined;

  constructor(items: readonly T[]) {
    this.#free = [...items];
  }

  /** Takes a free item, waiting for one when all are busy. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closed);
    const item = this.#free.pop();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve: (x: T) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(x);
        },
        reject,
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Returns an item to the pool (or straight to the next waiter). */
  release(item: T): void {
    const next = this.#waiters.shift();
    if (next) next.resolve(item);
    else this.#free.push(item);
  }

  /** Rejects every waiter and every later acquire with `error`. */
  close(error: Error): void {
    this.#closed = error;
    for (const w of this.#waiters.splice(0)) w.reject(error);
  }
}
