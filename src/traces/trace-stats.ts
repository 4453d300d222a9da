import type { DelegateTrace } from "./trace.js";

/** Counts and latencies of a group of proposal hops. */
export interface TraceGroupStats {
  hops: number;
  accepted: number;
  /** accepted / hops (0 when there are none). */
  acceptanceRate: number;
  verdicts: Record<string, number>;
  /** Nearest-rank percentiles of the hops' latency, in ms (proposals reused from the cache left out). */
  latencyMs: { p50: number; p95: number; max: number };
  /** Proposals reused from the proposal cache (`proposal.cached`), when any: no model was asked. */
  cached?: number;
}

/** What `deputy traces stats` reports. */
export interface TraceStats extends TraceGroupStats {
  /** Distinct units (run, node, item) and how many of them ended with an accepted hop. */
  units: number;
  unitsAccepted: number;
  byNode: Record<string, TraceGroupStats>;
  byBackend: Record<string, TraceGroupStats>;
}

/** Nearest-rank percentile of sorted numbers (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function group(traces: readonly DelegateTrace[]): TraceGroupStats {
  const verdicts: Record<string, number> = {};
  let cached = 0;
  for (const t of traces) {
    verdicts[t.verdict] = (verdicts[t.verdict] ?? 0) + 1;
    if (t.proposal?.cached === true) cached++;
  }
  // A reused proposal's latency is a lookup's: it says nothing of the model's speed.
  const latencies = traces
    .filter((t) => t.proposal?.cached !== true)
    .map((t) => t.latencyMs)
    .filter((n) => typeof n === "number")
    .sort((a, b) => a - b);
  const accepted = verdicts.accepted ?? 0;
  return {
    hops: traces.length,
    accepted,
    acceptanceRate: traces.length === 0 ? 0 : accepted / traces.length,
    verdicts,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) ?? 0 },
    ...(cached ? { cached } : {}),
  };
}

function groupBy(
  traces: readonly DelegateTrace[],
  key: (t: DelegateTrace) => string,
): Record<string, TraceGroupStats> {
  const groups = new Map<string, DelegateTrace[]>();
  for (const t of traces) {
    const k = key(t);
    const list = groups.get(k) ?? [];
    list.push(t);
    groups.set(k, list);
  }
  return Object.fromEntries(
    [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, list]) => [k, group(list)]),
  );
}

/** Verdict counts, acceptance rates and latency percentiles, overall, per node and per backend. */
export function traceStats(traces: readonly DelegateTrace[]): TraceStats {
  const units = new Map<string, boolean>();
  for (const t of traces) {
    const k = `${t.runId}\u0000${t.nodeId}\u0000${t.item ?? ""}`;
    units.set(k, (units.get(k) ?? false) || t.verdict === "accepted");
  }
  return {
    ...group(traces),
    units: units.size,
    unitsAccepted: [...units.values()].filter(Boolean).length,
    byNode: groupBy(traces, (t) => t.nodeId),
    byBackend: groupBy(traces, (t) => t.backend),
  };
}

/** The stats as a plain-text report. */
export function formatTraceStats(stats: TraceStats): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  // Backends report fractional milliseconds; two decimals below 10 ms, whole numbers above.
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : String(Math.round(x)));
  const lines = [
    `${stats.hops} proposals for ${stats.units} units; ${stats.accepted} accepted (${pct(stats.acceptanceRate)} of proposals, ${stats.unitsAccepted}/${stats.units} units)`,
    `latency p50 ${ms(stats.latencyMs.p50)} ms, p95 ${ms(stats.latencyMs.p95)} ms, max ${ms(stats.latencyMs.max)} ms` +
      (stats.cached ? ` (${stats.cached} reused from the proposal cache, not counted)` : ""),
    "",
    "verdicts:",
    ...Object.entries(stats.verdicts)
      .sort((a, b) => b[1] - a[1])
      .map(([v, n]) => `  ${v.padEnd(20)} ${String(n).padStart(6)}`),
  ];
  for (const [title, groups] of [
    ["node", stats.byNode],
    ["backend", stats.byBackend],
  ] as const) {
    lines.push("", `${"by " + title}`.padEnd(24) + "  hops  accepted    rate   p50 ms   p95 ms");
    for (const [name, g] of Object.entries(groups)) {
      lines.push(
        `  ${name.padEnd(22)}${String(g.hops).padStart(6)}${String(g.accepted).padStart(10)}${pct(g.acceptanceRate).padStart(8)}${ms(g.latencyMs.p50).padStart(9)}${ms(g.latencyMs.p95).padStart(9)}`,
      );
    }
  }
  return lines.join("\n") + "\n";
}
