import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { EXIT } from "../../cli/exit-codes.js";
import { RunError } from "../../errors/run-error.js";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { ResumeRunner } from "./resume-runner.js";
import { RunToolLoader } from "./run-tool-loader.js";

// A tool that fails while `mode` says so (the run is left to resume), and otherwise waits for `go` to exist.
const toolsModule = (dir: string) => `
import { existsSync, readFileSync } from "node:fs";
export const tools = [
  { name: "gate", description: "waits", input: { type: "object", properties: {} },
    run: async () => {
      if (readFileSync(${JSON.stringify(join(dir, "mode"))}, "utf8") === "fail") throw new RangeError("not yet");
      while (!existsSync(${JSON.stringify(join(dir, "go"))})) await new Promise((r) => setTimeout(r, 10));
      return "through";
    } },
];
`;

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("ResumeRunner (the console's resume)", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-console-resume-"));
  const db = join(dir, "runs.db");
  const store = new SqliteRunStore(db);
  afterAll(() => store.close());

  it("takes the run's lease like deputy resume: refused the same way while another process owns the run", async () => {
    writeFileSync(join(dir, "tools.mjs"), toolsModule(dir));
    writeFileSync(
      join(dir, "plan.json"),
      JSON.stringify({ name: "gated", nodes: [{ id: "gate", tool: "gate", store_as: "out" }] }),
    );
    writeFileSync(join(dir, "mode"), "fail");
    const first = await cli([
      "run",
      join(dir, "plan.json"),
      "--tools",
      join(dir, "tools.mjs"),
      "--store",
      db,
      "--json",
    ]);
    expect(first.code, first.stderr).toBe(EXIT.failed);
    const { runId } = JSON.parse(first.stdout) as { runId: string };
    writeFileSync(join(dir, "mode"), "wait");

    // Another process holds the run: the console and the CLI refuse it with the same error.
    const elsewhere = "elsewhere:1:abc";
    expect((await store.acquireLease(runId, elsewhere, 60_000)).acquired).toBe(true);
    // The console resumes with its own --tools: the module the record names is never imported.
    const runner = new ResumeRunner(store, new RunToolLoader(join(dir, "tools.mjs")));
    const refused = await runner.start(runId).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RunError.isInstance(refused) && refused.code === "RUN_LEASED").toBe(true);
    const message = (refused as Error).message;
    expect(message).toMatch(new RegExp(`^Run ${runId} is owned by ${elsewhere} `));
    const cliRefused = await cli(["resume", runId, "--store", db]);
    expect(cliRefused.code).toBe(EXIT.leased);
    expect(cliRefused.stderr).toContain(message.slice(0, message.indexOf("(")));
    expect(runner.get(runId)).toBeUndefined();
    await store.releaseLease(runId, elsewhere);

    // The console owns it now: a second console and the CLI are refused while its resume runs.
    const state = await runner.start(runId);
    expect(state.state).toBe("running");
    const other = new ResumeRunner(store, new RunToolLoader(join(dir, "tools.mjs")));
    await expect(other.start(runId)).rejects.toSatisfy(
      (e) => RunError.isInstance(e) && e.code === "RUN_LEASED",
    );
    const whileRunning = await cli(["resume", runId, "--store", db]);
    expect(whileRunning.code).toBe(EXIT.leased);
    expect(whileRunning.stderr).toMatch(/is owned by .*--wait/);

    writeFileSync(join(dir, "go"), "");
    await runner.drain();
    expect(runner.get(runId)).toMatchObject({ state: "done", status: "completed" });
    // Given back: the run is free again (a completed run has nothing to resume).
    await expect(runner.start(runId)).rejects.toThrow(/is completed; nothing to resume/);
    expect((await store.acquireLease(runId, elsewhere, 1000)).acquired).toBe(true);
  });
});
