import { existsSync, statSync } from "node:fs";
import { Redactor } from "../../traces/redact.js";
import { readTraces } from "../../traces/read-traces.js";
import type { DelegateTrace } from "../../traces/trace.js";

/** Filters of the trace viewer; all optional. */
export interface TraceFilter {
  runId?: string;
  nodeId?: string;
  item?: number;
  verdict?: string;
  backend?: string;
  /** Newest hops to return at most. Default 200. */
  limit?: number;
}

/** What the trace viewer shows. */
export interface TraceView {
  /** Hops that match the filter (all of them counted; the newest `limit` returned). */
  total: number;
  traces: DelegateTrace[];
  /** Every verdict and backend in the file, for the filter menus. */
  verdicts: string[];
  backends: string[];
  /** Confidences of the matching hops in ten bins of 0.1 (the last holds 1.0); `unscored` had none. */
  histogram: { bins: number[]; unscored: number };
}

const redactor = new Redactor();

/** Reads a JSONL trace file (again only when it changed) and answers the viewer's queries. */
export class TraceFile {
  readonly path: string;
  #mtimeMs = -1;
  #size = -1;
  #traces: DelegateTrace[] = [];

  constructor(path: string) {
    this.path = path;
  }

  #all(): DelegateTrace[] {
    if (!existsSync(this.path)) return [];
    const { mtimeMs, size } = statSync(this.path);
    if (mtimeMs !== this.#mtimeMs || size !== this.#size) {
      // Redacted on read as well: a sink may have been configured with `redact: false`.
      this.#traces = readTraces(this.path).traces.map((t) => redactor.redactTrace(t));
      this.#mtimeMs = mtimeMs;
      this.#size = size;
    }
    return this.#traces;
  }

  /** The hops that match a filter, newest last, with the histogram of their confidences. */
  query(filter: TraceFilter = {}): TraceView {
    const all = this.#all();
    const matching = all.filter(
      (t) =>
        (filter.runId === undefined || t.runId === filter.runId) &&
        (filter.nodeId === undefined || t.nodeId === filter.nodeId) &&
        (filter.item === undefined || t.item === filter.item) &&
        (filter.verdict === undefined || t.verdict === filter.verdict) &&
        (filter.backend === undefined || t.backend === filter.backend),
    );
    const bins = new Array<number>(10).fill(0);
    let unscored = 0;
    for (const t of matching) {
      const c = t.proposal?.confidence;
      if (typeof c !== "number" || !Number.isFinite(c)) unscored++;
      else bins[Math.min(9, Math.max(0, Math.floor(c * 10)))]!++;
    }
    return {
      total: matching.length,
      traces: matching.slice(-(filter.limit ?? 200)),
      verdicts: [...new Set(all.map((t) => t.verdict))].sort(),
      backends: [...new Set(all.map((t) => t.backend))].sort(),
      histogram: { bins, unscored },
    };
  }
}
