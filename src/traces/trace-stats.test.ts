import { describe, expect, it } from "vitest";
import { formatTraceStats, percentile, traceStats } from "./trace-stats.js";
import type { DelegateTrace } from "./trace.js";

const t = (
  nodeId: string,
  backend: string,
  verdict: string,
  latencyMs: number,
  item?: number,
): DelegateTrace => ({
  runId: "r",
  nodeId,
  ...(item === undefined ? {} : { item }),
  instruction: "",
  facts: {},
  tools: [],
  proposal: null,
  verdict,
  backend,
  latencyMs,
  time: "",
});

describe("traceStats", () => {
  const traces = [
    t("a", "x", "backend_error", 100, 0),
    t("a", "y", "accepted", 10, 0),
    t("a", "x", "low_confidence", 20, 1),
    t("b", "x", "accepted", 30),
    ...Array.from({ length: 16 }, (_, i) => t("c", "y", "accepted", i + 1, i)),
  ];

  it("counts verdicts and acceptance per node, backend and unit, with nearest-rank latency percentiles", () => {
    const s = traceStats(traces);
    expect(s.hops).toBe(20);
    expect(s.verdicts).toEqual({ backend_error: 1, accepted: 18, low_confidence: 1 });
    expect(s.acceptanceRate).toBe(0.9);
    expect([s.units, s.unitsAccepted]).toEqual([19, 18]);
    expect(s.byNode.a).toMatchObject({ hops: 3, accepted: 1, latencyMs: { p50: 20, p95: 100, max: 100 } });
    expect(s.byBackend.x).toMatchObject({ hops: 3, accepted: 1 });
    expect(s.byNode.c!.latencyMs).toEqual({ p50: 8, p95: 16, max: 16 });
    expect(formatTraceStats(s)).toContain(
      "20 proposals for 19 units; 18 accepted (90.0% of proposals, 18/19 units)",
    );
  });

  it("has defined percentiles for nothing and one value", () => {
    expect(percentile([], 95)).toBe(0);
    expect(percentile([7], 50)).toBe(7);
    expect(traceStats([]).acceptanceRate).toBe(0);
  });

  it("counts proposals reused from the cache and leaves their lookup latency out of the percentiles", () => {
    const reused = (latencyMs: number): DelegateTrace => ({
      ...t("c", "local", "accepted", latencyMs, 1),
      proposal: { name: "x", arguments: {}, confidence: 1, backend: "local", latencyMs, cached: true },
    });
    const stats = traceStats([t("c", "local", "accepted", 800, 0), reused(0.01), reused(0.02)]);
    expect(stats.cached).toBe(2);
    expect(stats.latencyMs).toEqual({ p50: 800, p95: 800, max: 800 });
    expect(stats.byBackend.local!.cached).toBe(2);
    expect(formatTraceStats(stats)).toContain("(2 reused from the proposal cache, not counted)");
    expect(traceStats([t("c", "local", "accepted", 5)]).cached).toBeUndefined();
  });
});
