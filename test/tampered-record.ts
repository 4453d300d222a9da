/**
 * The tampered-record scenario every store runs (issue 38 item 4): a run is started with a tools module, its
 * stored `options` are then rewritten with the store's own SQL (not through deputy), and each resume must be
 * refused with one line and exit 2 — no process spawned, no module imported (each would write a marker file).
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { main } from "../src/cli/main.js";
import { EXIT } from "../src/cli/exit-codes.js";

/** Writes a run's stored options JSON as the store's own SQL would. */
export type WriteOptions = (runId: string, options: Record<string, unknown>) => Promise<void>;
/** Reads a run's stored options JSON with the store's own SQL. */
export type ReadOptions = (runId: string) => Promise<Record<string, unknown>>;

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

/** Runs the scenario against the store at `store` (an SQLite file or a postgres:// URL). */
export async function tamperedRecordScenario(store: string, read: ReadOptions, write: WriteOptions) {
  const dir = mkdtempSync(join(tmpdir(), "deputy-tampered-"));
  const spawned = join(dir, "spawned");
  const imported = join(dir, "imported");
  const tools = join(dir, "tools.mjs");
  writeFileSync(
    tools,
    `import { readFileSync } from "node:fs";
export const tools = [
  { name: "step", description: "Fails until told to pass.", input: { type: "object", properties: {} },
    run: async () => {
      if (readFileSync(${JSON.stringify(join(dir, "mode"))}, "utf8") === "fail") throw new RangeError("not yet");
      return "ok";
    } },
];
`,
  );
  writeFileSync(join(dir, "mode"), "fail");
  // What an attacker who can write the store would make a host run.
  const evilServer = join(dir, "evil-server.mjs");
  writeFileSync(
    evilServer,
    `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(spawned)}, "x");\n`,
  );
  const evilModule = join(dir, "evil-module.mjs");
  writeFileSync(
    evilModule,
    `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(imported)}, "x"); export const tools = [];\n`,
  );
  const plan = join(dir, "plan.json");
  writeFileSync(
    plan,
    JSON.stringify({ name: "tampered", nodes: [{ id: "s", tool: "step", store_as: "out" }] }),
  );

  const run = await cli(["run", plan, "--tools", tools, "--store", store, "--json"]);
  expect(run.code, run.stderr).toBe(EXIT.failed);
  const { runId } = JSON.parse(run.stdout) as { runId: string };
  const original = await read(runId);
  expect(original.tools).toBe(tools);

  const refused = async (options: Record<string, unknown>, args: string[], pattern: RegExp) => {
    await write(runId, options);
    const r = await cli(["resume", runId, "--store", store, ...args]);
    expect(r.code, r.stderr).toBe(EXIT.invalid);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(existsSync(spawned), "a command named by the store was started").toBe(false);
    expect(existsSync(imported), "a module named by the store was imported").toBe(false);
  };
  const stdio = `mcp:stdio:${process.execPath} ${evilServer}`;
  // An added stdio server, and a swapped module: a resume without --tools says what to pass and runs none.
  await refused({ ...original, toolSources: [tools, stdio], cwd: dir }, [], /pass the same --tools again/);
  await refused({ ...original, tools: evilModule }, [], /pass the same --tools again/);
  await refused({ ...original, toolSources: [stdio] }, ["--json"], /--recorded-tools/);
  // Given --tools, the record's sources are not run; a flipped side-effect flag is refused.
  await refused(
    { ...original, toolSources: [tools, stdio], allowDelegateSideEffects: true },
    ["--tools", tools],
    /--allow-delegate-side-effects/,
  );
  // Changed definitions: the fingerprint of the given tools does not match the record's.
  const definitions = original.toolDefinitions as Record<string, Record<string, string>>;
  await refused(
    { ...original, toolDefinitions: { step: { ...definitions.step, input: "0000000000000000" } } },
    ["--tools", tools],
    /TOOLS_CHANGED/,
  );

  // The record restored, with an added server: the host's --tools run, the record's server does not.
  await write(runId, { ...original, toolSources: [tools, stdio], cwd: dir });
  writeFileSync(join(dir, "mode"), "pass");
  const resumed = await cli(["resume", runId, "--store", store, "--tools", tools, "--json"]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(existsSync(spawned)).toBe(false);
  expect(existsSync(imported)).toBe(false);
}
