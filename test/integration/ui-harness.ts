import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { cli } from "../cli-harness.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import { serveConsole, type RunningConsole } from "../../src/ui/server/serve-console.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const example = (file: string) => join(root, "examples/alert-triage", file);

/** Runs the `deputy` CLI in-process (test/cli-harness.ts). */
export { cli };

/** A console over a fresh store holding one run of the alert-triage example, and what the run wrote. */
export interface Fixture {
  dir: string;
  runId: string;
  store: SqliteRunStore;
  console: RunningConsole;
  outbox: string;
  traces: string;
  close(): Promise<void>;
}

/**
 * Copies the alert-triage example into a temporary folder, runs it with the scripted delegate (the given
 * proposals, or the example's own, which escalate five items), and serves the console over its store. The
 * example's tools write to `$DEPUTY_OUTBOX`, which points into the folder.
 */
export async function exampleRun(proposals?: string): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), "deputy-ui-"));
  for (const f of ["plan.json", "tools.mjs", "alerts.json"]) copyFileSync(example(f), join(dir, f));
  const scripted = join(dir, "proposals.jsonl");
  if (proposals === undefined) copyFileSync(example("proposals.jsonl"), scripted);
  else writeFileSync(scripted, proposals);
  const outbox = join(dir, "outbox.jsonl");
  process.env.DEPUTY_OUTBOX = outbox;
  const db = join(dir, "runs.db");
  const traces = join(dir, "traces.jsonl");
  const run = await cli([
    "run",
    join(dir, "plan.json"),
    "--tools",
    join(dir, "tools.mjs"),
    "--delegate",
    `scripted=${scripted}`,
    "--store",
    db,
    "--traces",
    traces,
    "--json",
  ]);
  if (run.code !== 4)
    throw new Error(`expected the run to escalate (exit 4), got ${run.code}: ${run.stderr}`);
  const { runId } = JSON.parse(run.stdout) as { runId: string };
  const store = new SqliteRunStore(db);
  // The console resumes with its own --tools: it never imports the module a run record names.
  const served = await serveConsole({ store, port: 0, tools: join(dir, "tools.mjs") });
  return {
    dir,
    runId,
    store,
    console: served,
    outbox,
    traces,
    close: async () => {
      await served.close();
      await store.close();
    },
  };
}

/** Debian's chromium (installed by scripts/chromium.sh when missing), driven by playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = execFileSync("bash", [join(root, "scripts/chromium.sh")], {
    encoding: "utf8",
  }).trim();
  // Root (as in CI containers) cannot use Chromium's sandbox.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, args });
}
