import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlTraceSink } from "../../traces/jsonl-trace-sink.js";
import type { DelegateTrace } from "../../traces/trace.js";
import { TraceFile } from "./trace-view.js";

describe("TraceFile", () => {
  it("shows the hops its sink rotated out too", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-trace-view-")), "t.jsonl");
    const hop = (item: number): DelegateTrace => ({
      runId: "r",
      nodeId: "n",
      item,
      instruction: "i",
      facts: {},
      tools: [],
      proposal: null,
      verdict: "declined",
      backend: "b",
      latencyMs: 1,
      time: "2026-01-01T00:00:00.000Z",
    });
    const lineBytes = new JsonlTraceSink(path).format(hop(0)).length + 1;
    const sink = new JsonlTraceSink(path, { maxBytes: lineBytes * 2, maxFiles: 5 });
    for (let i = 0; i < 5; i++) await sink.write(hop(i));
    const view = new TraceFile(path).query({ runId: "r" });
    expect(view.total).toBe(5);
    expect(view.traces.map((t) => t.item)).toEqual([0, 1, 2, 3, 4]);
  });
});
