import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent, UnnumberedRunEvent } from "../plan/run-events.js";
import { progressOfRun, type RunProgress } from "./serve-progress.js";

/** A run's events: nodes (some for_each, with items) ending in any interleaving the engine may produce. */
const runs = fc
  .array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 6 })
  .chain((items) =>
    fc
      .array(fc.nat({ max: items.length - 1 }), { maxLength: 3000 })
      .map((picks) => ({ items, events: interleave(items, picks) })),
  );

/** An event as the emitter numbers it (its number plays no part in progress). */
const numbered = (e: UnnumberedRunEvent, seq = 0): RunEvent => ({ seq, ...e }) as RunEvent;

function interleave(items: number[], picks: number[]): RunEvent[] {
  const runId = "r";
  const queues: UnnumberedRunEvent[][] = items.map((total, n) => [
    ...Array.from({ length: total }, (_, i) => ({
      type: "item-end" as const,
      runId,
      nodeId: `n${n}`,
      index: i,
      status: "ok",
      done: i + 1,
      total,
    })),
    { type: "node-end" as const, runId, nodeId: `n${n}`, status: "ok" as const, durationMs: 1 },
  ]);
  const out: UnnumberedRunEvent[] = [
    { type: "run-start", runId, plan: "p", nodes: items.length, resumed: false },
  ];
  for (const pick of picks) {
    const queue = queues[pick]!;
    if (queue.length) out.push(queue.shift()!);
  }
  for (const queue of queues) out.push(...queue);
  return out.map((e, i) => numbered(e, i + 1));
}

describe("progressOfRun", () => {
  it("sends progress that always grows, never passes the total, ends at it, and stays about a hundred per node", () => {
    fc.assert(
      fc.property(runs, ({ items, events }) => {
        const sent: RunProgress[] = [];
        const onEvent = progressOfRun((p) => sent.push(p));
        for (const e of events) onEvent(e);
        for (let i = 1; i < sent.length; i++)
          expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
        for (const p of sent) {
          expect(p.total).toBe(items.length);
          expect(p.progress).toBeLessThanOrEqual(p.total);
          expect(p.message).toMatch(/^nodes \d+\/\d+/);
        }
        expect(sent.at(-1)?.progress).toBe(items.length);
        expect(sent.length).toBeLessThanOrEqual(items.length * 102);
      }),
      { numRuns: 200 },
    );
  });

  it("says where the run is: nodes done, and the items of each for_each node in flight", () => {
    const sent: RunProgress[] = [];
    const onEvent = progressOfRun((p) => sent.push(p));
    onEvent(numbered({ type: "run-start", runId: "r", plan: "p", nodes: 2, resumed: false }));
    onEvent(numbered({ type: "node-end", runId: "r", nodeId: "load", status: "ok", durationMs: 1 }));
    onEvent(
      numbered({ type: "item-end", runId: "r", nodeId: "triage", index: 0, status: "ok", done: 1, total: 4 }),
    );
    expect(sent).toEqual([
      { progress: 1, total: 2, message: "nodes 1/2" },
      { progress: 1.25, total: 2, message: "nodes 1/2 · triage items 1/4" },
    ]);
  });
});
