import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlTraceSink } from "./jsonl-trace-sink.js";
import { readTraces, traceFiles } from "./read-traces.js";
import type { DelegateTrace } from "./trace.js";

const trace = (i: number): DelegateTrace => ({
  runId: "r",
  nodeId: "n",
  item: i,
  instruction: `alert ${i}`,
  facts: {},
  tools: [],
  proposal: null,
  verdict: "declined",
  backend: "b",
  latencyMs: 1,
  time: "2026-01-01T00:00:00.000Z",
});

describe("readTraces", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-read-traces-"));

  it("reads the hops a sink rotated out, oldest first, then the current file", async () => {
    const path = join(dir, "t.jsonl");
    const lineBytes = new JsonlTraceSink(path).format(trace(0)).length + 1;
    const sink = new JsonlTraceSink(path, { maxBytes: lineBytes * 3, maxFiles: 3 });
    for (let i = 0; i < 8; i++) await sink.write(trace(i));
    await sink.close();
    expect(traceFiles(path)).toEqual([`${path}.2`, `${path}.1`, path]);
    expect(readTraces(path).traces.map((t) => t.item)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(readTraces(path, { rotated: false }).traces.map((t) => t.item)).toEqual([6, 7]);

    // Rotated just now, nothing written since: the rotated files are still read.
    rmSync(path);
    expect(readTraces(path).traces.map((t) => t.item)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("counts lines that are not traces in every file, and refuses a missing file", () => {
    const path = join(dir, "cut.jsonl");
    writeFileSync(`${path}.1`, `${JSON.stringify(trace(0))}\n{"cut`);
    writeFileSync(path, `not json\n${JSON.stringify(trace(1))}\n`);
    expect(readTraces(path)).toMatchObject({ invalidLines: 2, traces: [{ item: 0 }, { item: 1 }] });
    expect(() => readTraces(join(dir, "none.jsonl"))).toThrow(
      expect.objectContaining({ code: "TRACES_NOT_FOUND" }),
    );
  });
});
