/**
 * `deputy plan --run` with a plan whose tool nodes call tools with side effects (issue 38, item 1): shown, then
 * without a terminal or `--yes` kept as a run awaiting approval that nothing resumes; `--approve RUN_ID` runs it,
 * recording who approved and how. The side-effecting tool counts its calls in a file: it must stay at zero until
 * a person approves.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-plan-approve-"));
const calls = join(dir, "calls.txt");
const toolsPath = join(dir, "tools.mjs");
writeFileSync(
  toolsPath,
  `import { appendFileSync } from "node:fs";
export default [
  { name: "list_repos", description: "Repositories", delegateSafe: true, input: { type: "object" },
    run: () => ["a", "b"] },
  { name: "post_message", description: "Post to a channel",
    input: { type: "object", properties: { text: {} }, required: ["text"] },
    run: ({ text }) => { appendFileSync(${JSON.stringify(calls)}, "x"); return { posted: text }; } },
];
`,
);
const plan = {
  name: "post-repos",
  nodes: [
    { id: "repos", tool: "list_repos", store_as: "repos" },
    {
      id: "post",
      tool: "post_message",
      depends_on: ["repos"],
      args: { text: "{artifacts.repos}" },
      store_as: "p",
    },
  ],
};
const script = (name: string) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(plan) + "\n");
  return `scripted=${file}`;
};
const posted = () => (existsSync(calls) ? readFileSync(calls, "utf8").length : 0);

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy plan: a person approves calls of tools with side effects", () => {
  const db = join(dir, "runs.db");
  const ask = (name: string, ...extra: string[]) =>
    cli([
      "plan",
      "--objective",
      "Post the repos",
      "--tools",
      toolsPath,
      "--model",
      script(name),
      "--run",
      ...extra,
    ]);

  it("keeps the plan for approval without a terminal or --yes; nothing resumes it; --approve runs it", async () => {
    const kept = await ask("kept.jsonl", "--store", db);
    expect(kept.code).toBe(4);
    expect(kept.stderr).toContain('node "post": "post_message"');
    expect(kept.stderr).toContain('"args": {"text":"{artifacts.repos}"}');
    const runId = /kept as run (\S+),/.exec(kept.stderr)![1]!;
    expect(posted()).toBe(0);

    const resumed = await cli(["resume", runId, "--tools", toolsPath, "--store", db]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/awaiting a person's approval/);
    expect(posted()).toBe(0);

    const approved = await cli([
      "plan",
      "--approve",
      runId,
      "--by",
      "ada",
      "--tools",
      toolsPath,
      "--store",
      db,
      "--json",
    ]);
    expect(approved.code).toBe(0);
    expect(posted()).toBe(1);
    const manifest = JSON.parse(approved.stdout);
    expect(manifest.status).toBe("completed");
    const store = new SqliteRunStore(db);
    try {
      const pending = (await store.load(runId))!.run;
      expect(pending.options.authored?.approval).toEqual({ status: "pending", tools: ["post_message"] });
      expect(pending.status).toBe("cancelled");
      expect(pending.error?.code).toBe("APPROVED");
      const ran = (await store.load(manifest.runId))!.run;
      expect(ran.options.authored).toMatchObject({
        objective: "Post the repos",
        approval: { status: "approved", tools: ["post_message"], how: "flag", by: "ada", from: runId },
      });
    } finally {
      await store.close();
    }
    const again = await cli(["plan", "--approve", runId, "--tools", toolsPath, "--store", db]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split("\n")).toHaveLength(1);
    expect(posted()).toBe(1);
  });

  it("runs at once with --yes, recording the flag", async () => {
    const before = posted();
    const r = await ask("yes.jsonl", "--yes", "--store", db, "--json");
    expect(r.code).toBe(0);
    expect(posted()).toBe(before + 1);
    const store = new SqliteRunStore(db);
    try {
      const run = (await store.load(JSON.parse(r.stdout).runId))!.run;
      expect(run.options.authored?.approval).toMatchObject({ status: "approved", how: "flag" });
    } finally {
      await store.close();
    }
  });

  it("refuses a bad --confidence-floor, and keeps nothing without a store (one line each, nothing run)", async () => {
    const before = posted();
    const floor = await ask("floor.jsonl", "--confidence-floor", "2", "--store", join(dir, "never.db"));
    expect(floor.code).toBe(2);
    expect(floor.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "never.db"))).toBe(false);
    const memory = await ask("memory.jsonl", "--no-store");
    expect(memory.code).toBe(4);
    expect(memory.stderr).toMatch(/nothing was run/);
    expect(posted()).toBe(before);
  });
});
