import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlTraceSink } from "./jsonl-trace-sink.js";
import { readTraces } from "./read-traces.js";
import type { DelegateTrace } from "./trace.js";

const trace = (i: number, over: Partial<DelegateTrace> = {}): DelegateTrace => ({
  runId: "r",
  nodeId: "n",
  item: i,
  instruction: `alert ${i}`,
  facts: { token: "t0ps3cret", text: "z".repeat(50) },
  tools: [],
  proposal: null,
  verdict: "declined",
  backend: "b",
  latencyMs: i,
  time: "2026-01-01T00:00:00.000Z",
  ...over,
});

describe("JsonlTraceSink", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-traces-"));

  it("appends one redacted, capped line per trace, in order", async () => {
    const path = join(dir, "sub", "t.jsonl");
    const sink = new JsonlTraceSink(path, { maxFieldChars: 10 });
    await Promise.all([0, 1, 2].map((i) => sink.write(trace(i))));
    await sink.close();
    const { traces, invalidLines } = readTraces(path);
    expect(invalidLines).toBe(0);
    expect(traces.map((t) => t.item)).toEqual([0, 1, 2]);
    expect(traces[0]!.facts).toEqual({ token: "[REDACTED]", text: "zzzzzzzzzz…[+40 chars]" });
    expect(readFileSync(path, "utf8")).not.toContain("t0ps3cret");
    expect(sink.written).toBe(3);
  });

  it("writes unredacted when asked", async () => {
    const path = join(dir, "raw.jsonl");
    const sink = new JsonlTraceSink(path, { redact: false });
    await sink.write(trace(0));
    expect(readTraces(path).traces[0]!.facts.token).toBe("t0ps3cret");
  });

  it("rotates at maxBytes keeping maxFiles older files", async () => {
    const path = join(dir, "rot.jsonl");
    const lineBytes = new JsonlTraceSink(path).format(trace(0)).length + 1;
    const sink = new JsonlTraceSink(path, { maxBytes: lineBytes * 2, maxFiles: 2 });
    for (let i = 0; i < 7; i++) await sink.write(trace(i));
    const items = (p: string) => readTraces(p, { rotated: false }).traces.map((t) => t.item);
    expect(items(path)).toEqual([6]);
    expect(items(`${path}.1`)).toEqual([4, 5]);
    expect(items(`${path}.2`)).toEqual([2, 3]);
    expect(existsSync(`${path}.3`)).toBe(false);
    // readTraces reads what the sink kept, oldest first: its rotated files, then the current one.
    expect(readTraces(path).traces.map((t) => t.item)).toEqual([2, 3, 4, 5, 6]);

    // Concurrent writes go out in batches, split where the file must rotate.
    const batched = join(dir, "batched.jsonl");
    const sink2 = new JsonlTraceSink(batched, { maxBytes: lineBytes * 2, maxFiles: 5 });
    await Promise.all([0, 1, 2, 3, 4, 5, 6].map((i) => sink2.write(trace(i))));
    expect([items(batched), items(`${batched}.1`), items(`${batched}.2`), items(`${batched}.3`)]).toEqual([
      [6],
      [4, 5],
      [2, 3],
      [0, 1],
    ]);
    expect(sink2.written).toBe(7);
  });

  it("never throws into the caller: failures are counted and reported", async () => {
    const blocker = join(dir, "file-not-dir");
    writeFileSync(blocker, "");
    const errors: unknown[] = [];
    const sink = new JsonlTraceSink(join(blocker, "t.jsonl"), { onError: (e) => errors.push(e) });
    await expect(sink.write(trace(0))).resolves.toBeUndefined();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(sink.write(trace(1, { facts: circular }))).resolves.toBeUndefined();
    expect(sink.failures).toBe(2);
    expect(errors).toHaveLength(2);
    // The sink recovers once the path is writable.
    mkdirSync(join(dir, "ok"));
    const ok = new JsonlTraceSink(join(dir, "ok", "t.jsonl"));
    await ok.write(trace(2));
    expect(ok.failures).toBe(0);
  });

  it("rejects bad options at once", () => {
    expect(() => new JsonlTraceSink("x", { maxFieldChars: 0 })).toThrow(
      "Expected `maxFieldChars` to be a positive integer, got 0.",
    );
    expect(() => new JsonlTraceSink("x", { maxFiles: -1 })).toThrow(/maxFiles/);
  });
});
