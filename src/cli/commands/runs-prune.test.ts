import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import type { RunRecord } from "../../store/run-state.js";
import { main } from "../main.js";
import { parseAge } from "./runs-prune.js";

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const run = (runId: string, at: Date): RunRecord => ({
  runId,
  planName: "p",
  fingerprint: "f",
  plan: { name: "p", nodes: [{ id: "a" }] },
  status: "completed",
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
  options: { version: 1 },
});

describe("deputy runs prune", () => {
  it("deletes runs older than --older-than and keeps the rest", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "deputy-prune-")), "runs.db");
    const store = new SqliteRunStore(db);
    await store.createRun(run("old", new Date(Date.now() - 40 * 86_400_000)));
    await store.createRun(run("new", new Date()));
    await store.close();
    const pruned = await cli(["runs", "prune", "--older-than", "30d", "--store", db, "--json"]);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ deleted: 1 });
    const listed = await cli(["runs", "--store", db]);
    expect(listed.stdout).toContain("new");
    expect(listed.stdout).not.toContain("old ");
  });

  it("refuses a malformed age with exit 2 and one line, creating nothing", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "deputy-prune-")), "sub", "runs.db");
    const bad = await cli(["runs", "prune", "--older-than", "thirty days", "--store", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });

  it("reads ages in s, m, h, d and w", () => {
    expect(parseAge("45s")).toBe(45_000);
    expect(parseAge("90m")).toBe(5_400_000);
    expect(parseAge("12h")).toBe(43_200_000);
    expect(parseAge("30d")).toBe(2_592_000_000);
    expect(parseAge("2w")).toBe(1_209_600_000);
    expect(() => parseAge("-1d")).toThrow(/--older-than/);
  });
});
