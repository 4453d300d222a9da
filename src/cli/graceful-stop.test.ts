import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "./main.js";

// These tests drive the real `deputy` process (bin/deputy.js over dist/, built by `npm test`) and real signals.
const BIN = fileURLToPath(new URL("../../bin/deputy.js", import.meta.url));

const TOOLS = `import { appendFileSync } from "node:fs";
export const tools = [
  { name: "list", description: "n items", input: { type: "object", properties: { n: { type: "number" } } },
    run: ({ n }) => Array.from({ length: n }, (_, i) => i) },
  { name: "slow", description: "takes ms, honours its signal unless stubborn",
    input: { type: "object", properties: { i: {}, ms: { type: "number" }, stubborn: { type: "boolean" } } },
    run: ({ i, ms, stubborn }, ctx) => new Promise((resolve, reject) => {
      appendFileSync(process.env.STARTED, i + "\\n");
      const t = setTimeout(() => { appendFileSync(process.env.CALLS, i + "\\n"); resolve(i); }, ms);
      if (!stubborn) ctx.signal.addEventListener("abort", () => { clearTimeout(t); reject(new Error("aborted")); }, { once: true });
    }) },
];`;

function plan(ms: number, stubborn = false) {
  return {
    name: "graceful",
    nodes: [
      { id: "l", tool: "list", args: { n: 12 }, store_as: "l" },
      {
        id: "s",
        tool: "slow",
        depends_on: ["l"],
        args: { i: "{item}", ms, stubborn },
        store_as: "s_{index}",
        for_each: { source: "{artifacts.l}", max_concurrency: 2 },
      },
      { id: "after", tool: "list", depends_on: ["s"], args: { n: 1 }, store_as: "after" },
    ],
  };
}

function workspace(p: object) {
  const dir = mkdtempSync(join(tmpdir(), "deputy-stop-"));
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(p));
  const env = { ...process.env, CALLS: join(dir, "calls.txt"), STARTED: join(dir, "started.txt") };
  const lines = (f: string) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : []);
  return {
    dir,
    env,
    store: join(dir, "runs.db"),
    calls: () => lines(env.CALLS),
    started: () => lines(env.STARTED),
  };
}

/** Starts `deputy run`, and sends `signals` once the first item has started. */
async function runAndSignal(ws: ReturnType<typeof workspace>, args: string[], signals: NodeJS.Signals[]) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "run",
      join(ws.dir, "plan.json"),
      "--tools",
      join(ws.dir, "tools.mjs"),
      "--store",
      ws.store,
      ...args,
    ],
    { env: ws.env },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  while (ws.started().length === 0) await new Promise((r) => setTimeout(r, 50));
  for (const signal of signals) {
    child.kill(signal);
    while (!stderr.includes(signal)) await new Promise((r) => setTimeout(r, 20));
  }
  return { code: await exited, stdout, stderr: () => stderr };
}

async function cli(args: string[]) {
  let stdout = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: () => {}, isTTY: false });
  return { code, stdout };
}

describe("graceful stops (real process, real signals)", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s: no new work, in-flight items finish and are committed, run interrupted, resume finishes with each item run once",
    async (signal) => {
      const ws = workspace(plan(400));
      const run = await runAndSignal(ws, [], [signal]);
      expect(run.code).toBe(130);
      expect(run.stdout).toMatch(/: interrupted/);
      expect(run.stdout).toMatch(/deputy resume \S+ --store/);
      const done = ws.calls().length;
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(12);
      // Every item that started before the stop finished within the grace period.
      expect(ws.calls().sort()).toEqual(ws.started().sort());

      const listed = await cli(["runs", "--store", ws.store, "--json"]);
      const [{ runId, status }] = JSON.parse(listed.stdout) as [{ runId: string; status: string }];
      expect(status).toBe("interrupted");
      // The resume runs in this process: the tools module reads these.
      Object.assign(process.env, { CALLS: ws.env.CALLS, STARTED: ws.env.STARTED });
      const resumed = await cli(["resume", runId, "--store", ws.store, "--tools", join(ws.dir, "tools.mjs")]);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/completed/);
      const calls = ws.calls();
      expect(calls).toHaveLength(12);
      expect(new Set(calls).size).toBe(12);
    },
    60_000,
  );

  it("after the grace period in-flight work is aborted; the run is still interrupted and resumable", async () => {
    const ws = workspace(plan(30_000));
    const run = await runAndSignal(ws, ["--grace", "0.2"], ["SIGINT"]);
    expect(run.code).toBe(130);
    expect(run.stdout).toMatch(/: interrupted/);
    expect(ws.calls()).toHaveLength(0);
  }, 60_000);

  it("a second signal exits at once, even when in-flight work ignores its signal", async () => {
    const ws = workspace(plan(60_000, true));
    const run = await runAndSignal(ws, ["--grace", "600"], ["SIGINT", "SIGINT"]);
    expect(run.code).toBe(130);
    expect(run.stderr()).toMatch(/again: exiting now/);
    // What was committed before the exit is intact: the run and its first node are there.
    const listed = await cli(["runs", "--store", ws.store, "--json"]);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
  }, 60_000);
});
