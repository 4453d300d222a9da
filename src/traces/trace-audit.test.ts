import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { JsonlTraceSink } from "./jsonl-trace-sink.js";
import { readTraces } from "./read-traces.js";
import type { DelegateTrace } from "./trace.js";

const trace = (args: Record<string, unknown>, i = 0): DelegateTrace => ({
  runId: "r",
  nodeId: "n",
  item: i,
  instruction: "do it",
  facts: {},
  tools: [],
  proposal: { name: "t", arguments: args, confidence: 1, backend: "b", latencyMs: 1 },
  verdict: "accepted",
  finalCall: { name: "t", arguments: args },
  backend: "b",
  latencyMs: 1,
  time: "2026-01-01T00:00:00.000Z",
});

function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: "x" };
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : { b: [v] };
  return v;
}

describe("traces are an audit log", () => {
  it("a hop with arguments nested at any depth is traced (cut at the depth limit), never lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-audit-"));
    const path = join(dir, "t.jsonl");
    const sink = new JsonlTraceSink(path);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 20_000 }), async (depth) => {
        await sink.write(trace(nested(depth)));
      }),
      { numRuns: 40 },
    );
    await sink.close();
    expect(sink.failures).toBe(0);
    expect(sink.written).toBe(40);
    expect(readTraces(path).invalidLines).toBe(0);
  });

  it("--traces at a directory, or under a file, fails before the run: exit 2, nothing created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-audit-"));
    writeFileSync(
      join(dir, "plan.json"),
      JSON.stringify({ name: "p", nodes: [{ id: "a", tool: "t", store_as: "a" }] }),
    );
    writeFileSync(
      join(dir, "tools.mjs"),
      `export const tools = [{ name: "t", description: "t", input: { type: "object" }, run: () => 1 }];`,
    );
    writeFileSync(join(dir, "afile"), "x");
    for (const traces of [dir, join(dir, "afile", "t.jsonl")]) {
      let err = "";
      const code = await main(
        [
          "run",
          join(dir, "plan.json"),
          "--tools",
          join(dir, "tools.mjs"),
          "--store",
          join(dir, "runs.db"),
          "--traces",
          traces,
        ],
        { stdout: () => {}, stderr: (t) => (err += t), isTTY: false },
      );
      expect(code).toBe(2);
      expect(err).toMatch(/TRACES_INVALID/);
      expect(existsSync(join(dir, "runs.db"))).toBe(false);
    }
  });

  it("two processes sharing one trace file respect the size cap", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-audit-"));
    const path = join(dir, "shared.jsonl");
    const sinkModule = fileURLToPath(new URL("../../dist/traces/jsonl-trace-sink.js", import.meta.url));
    const maxBytes = 20_000;
    const writer = `
      const { JsonlTraceSink } = await import(${JSON.stringify(sinkModule)});
      const sink = new JsonlTraceSink(${JSON.stringify(path)}, { maxBytes: ${maxBytes}, maxFiles: 50 });
      for (let i = 0; i < 200; i++) {
        await sink.write({ runId: process.argv[1], nodeId: "n", item: i, instruction: "x".repeat(200), facts: {},
          tools: [], proposal: null, verdict: "declined", backend: "b", latencyMs: 1, time: new Date().toISOString() });
      }
      await sink.close();`;
    const run = (name: string) =>
      promisify(execFile)(process.execPath, ["--input-type=module", "-e", writer, name]);
    await Promise.all([run("A"), run("B")]);
    const files = readdirSync(dir).map((f) => join(dir, f));
    const line = 400; // one trace line is about 330 bytes: a file may pass the cap by what the other process appended in the same instant
    for (const f of files) expect(statSync(f).size).toBeLessThanOrEqual(maxBytes + 2 * line);
    const total = files.reduce((n, f) => n + readTraces(f, { rotated: false }).traces.length, 0);
    expect(total).toBe(400);
  }, 60_000);
});
