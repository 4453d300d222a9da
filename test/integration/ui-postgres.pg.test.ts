import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, inject, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { freshDatabase } from "../postgres-database.js";

// `deputy ui` over a real PostgreSQL store: the console's API answers for a run stored there (runs list, run,
// node, items, inbox). The page itself is the same as over SQLite (ui.test.ts drives it in a browser).
const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "bin/deputy.js");
const serverUrl = inject("pgUrl");

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
});

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

/** Runs the alert-triage example (its scripted proposals escalate five items) into the given store. */
async function escalatedRun(store: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "deputy-ui-pg-"));
  for (const f of ["plan.json", "tools.mjs", "alerts.json", "proposals.jsonl"])
    copyFileSync(join(root, "examples/alert-triage", f), join(dir, f));
  process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
  const run = await cli([
    "run",
    join(dir, "plan.json"),
    "--tools",
    join(dir, "tools.mjs"),
    "--delegate",
    `scripted=${join(dir, "proposals.jsonl")}`,
    "--store",
    store,
    "--json",
  ]);
  expect(run.code, run.stderr).toBe(4);
  return (JSON.parse(run.stdout) as { runId: string }).runId;
}

/** Starts `deputy ui` on a free port; resolves with its origin and token once it prints its URL. */
function startUi(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ origin: string; token: string }> {
  child = spawn(process.execPath, [bin, "ui", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child!.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/[^/\s]+)\/#token=([\w-]+)/.exec(out);
      if (m) resolve({ origin: m[1]!, token: m[2]! });
    });
    child!.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child!.on("exit", (code) => reject(new Error(`deputy ui exited ${code}: ${err}`)));
  });
}

describe("deputy ui over a PostgreSQL store", () => {
  it("serves the runs list, a run, its nodes and items, and the inbox of a run stored in PostgreSQL", async () => {
    const url = await freshDatabase(serverUrl);
    const runId = await escalatedRun(url);
    // The store comes from $DEPUTY_STORE, as for every other command; the password never reaches the output.
    const { origin, token } = await startUi({ ...process.env, DEPUTY_STORE: url });
    const api = async (path: string) => {
      const res = await fetch(`${origin}${path}`, { headers: { "X-Deputy-Token": token } });
      expect(res.status, path).toBe(200);
      return (await res.json()) as Record<string, any>;
    };

    const runs = (await api("/api/runs")) as unknown as { runId: string; status: string }[];
    expect(runs.map((r) => [r.runId, r.status])).toEqual([[runId, "escalated"]]);

    const run = await api(`/api/runs/${runId}`);
    expect(run.status).toBe("escalated");
    const triage = (run.nodes as { id: string; status: string }[]).find((n) => n.id === "triage_items");
    expect(triage?.status).toBe("escalated");

    const node = await api(`/api/runs/${runId}/nodes/triage_items`);
    expect(node.plan.id).toBe("triage_items");
    const items = await api(`/api/runs/${runId}/nodes/triage_items/items?status=escalated`);
    expect(items.items).toHaveLength(5);
    expect(items.counts.escalated).toBe(5);

    const inbox = (await api("/api/inbox")) as unknown as { runId: string; nodeId: string }[];
    expect(inbox).toHaveLength(5);
    expect(new Set(inbox.map((e) => `${e.runId}/${e.nodeId}`))).toEqual(new Set([`${runId}/triage_items`]));
    expect((await fetch(`${origin}/api/runs/nope`, { headers: { "X-Deputy-Token": token } })).status).toBe(
      404,
    );
  });

  it("refuses a PostgreSQL store it cannot reach at start: one line without the password, no console", async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawn(
        process.execPath,
        [bin, "ui", "--port", "0", "--store", "postgres://deputy:secret@127.0.0.1:1/x"],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let err = "";
      c.stderr.on("data", (d: Buffer) => (err += d.toString()));
      c.on("exit", (code) => resolve({ code, stderr: err }));
    });
    expect(code).not.toBe(0);
    expect(stderr).not.toContain("secret");
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });
});
