import type { DelegateTrace, TraceSink } from "./trace.js";

/** Keeps traces in memory, unredacted (tests, notebooks, custom exporters). */
export class MemoryTraceSink implements TraceSink {
  readonly traces: DelegateTrace[] = [];

  write(trace: DelegateTrace): void {
    this.traces.push(trace);
  }
}
