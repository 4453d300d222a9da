/** Options of {@link TurnBatcher}. */
export interface TurnBatcherOptions {
  /**
   * One flush at a time: what is added while a flush runs waits for it and goes out in the next batch (a group
   * commit, one statement at a time on a connection). Default `false`: each turn's batch is flushed at once,
   * even while an earlier one is still running.
   */
  serial?: boolean;
}

/**
 * deputy's one write-batching mechanism: gathers what is added during one turn of the event loop (the items of
 * a `for_each` finishing side by side, the writes of concurrent nodes) and hands it to `flush` as one batch on
 * the next `setImmediate`, so many small writes cost one commit, one statement or one model call.
 *
 * `flush` owns the outcome of its batch (it resolves or rejects whoever waits on the items); a failure it lets
 * escape is dropped here, so one bad batch never stops the next.
 *
 * @example
 * const writes = new TurnBatcher<Pending>((batch) => commit(batch), { serial: true });
 * writes.add({ runId, mutations, resolve, reject });
 */
export class TurnBatcher<T> {
  readonly #flush: (batch: T[]) => void | Promise<void>;
  readonly #serial: boolean;
  #items: T[] = [];
  #scheduled = false;
  #running = false;
  #inFlight = 0;

  constructor(flush: (batch: T[]) => void | Promise<void>, options: TurnBatcherOptions = {}) {
    this.#flush = flush;
    this.#serial = options.serial === true;
  }

  /** What waits for the next flush, oldest first. */
  get pending(): readonly T[] {
    return this.#items;
  }

  /** True while anything is pending, scheduled or being flushed (a store waits for this to end on close). */
  get busy(): boolean {
    return this.#items.length > 0 || this.#scheduled || this.#inFlight > 0;
  }

  /** Adds items to this turn's batch; the first of a batch schedules its flush. */
  add(...items: T[]): void {
    this.#items.push(...items);
    // A serial flush in progress takes them when its batch is done: no second flush is scheduled meanwhile.
    if (this.#scheduled || this.#items.length === 0 || (this.#serial && this.#running)) return;
    this.#scheduled = true;
    setImmediate(() => void this.#run());
  }

  /** Flushes what is pending now rather than next turn (a serial batcher: once the flush in progress ends). */
  flushNow(): Promise<void> {
    return this.#run();
  }

  async #run(): Promise<void> {
    this.#scheduled = false;
    if (!this.#serial) return this.#flushOne(this.#take());
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#items.length > 0) await this.#flushOne(this.#take());
    } finally {
      this.#running = false;
    }
  }

  #take(): T[] {
    const batch = this.#items;
    this.#items = [];
    return batch;
  }

  async #flushOne(batch: T[]): Promise<void> {
    if (batch.length === 0) return;
    this.#inFlight++;
    try {
      await this.#flush(batch);
    } catch {
      // `flush` settles its own waiters; what escapes it must not stop the batches after it.
    } finally {
      this.#inFlight--;
    }
  }
}
