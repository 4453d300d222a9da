import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { z } from "zod";
import { runPlan } from "../../compose/index.js";
import { MemoryRunStore } from "../../store/memory-run-store.js";
import { defineTool } from "../../tools/define-tool.js";
import { main } from "../main.js";
import { renderManifest } from "../render-manifest.js";

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const T = 1_700_000_000_000; // (2023: long expired)

describe("deputy cache clear", () => {
  it("deletes one tool's cached results with --tool, then everything, and says how many", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "deputy-cache-cli-")), "runs.db");
    const store = new SqliteRunStore(db);
    const far = Date.now() + 86_400_000;
    await store.putCached({ key: "k1", scope: "tool:lookup", value: 1, createdAt: T, expiresAt: far });
    await store.putCached({ key: "k2", scope: "tool:lookup", value: 2, createdAt: T, expiresAt: far });
    await store.putCached({ key: "k3", scope: "tool:search", value: 3, createdAt: T, expiresAt: far });
    await store.putCached({ key: "k4", scope: "proposal:local", value: 4, createdAt: T, expiresAt: null });
    await store.putCached({ key: "k5", scope: "tool:search", value: 5, createdAt: T, expiresAt: T + 1 });
    await store.close();

    const expired = await cli(["cache", "clear", "--expired", "--store", db, "--json"]);
    expect(expired.code, expired.stderr).toBe(0);
    expect(JSON.parse(expired.stdout)).toEqual({ deleted: 1 });
    const one = await cli(["cache", "clear", "--tool", "lookup", "--store", db]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe(`cleared 2 cache entries of tool "lookup" from ${db}\n`);
    const check = new SqliteRunStore(db);
    expect(await check.getCached("k1", T)).toBeUndefined();
    expect((await check.getCached("k3", T))?.value).toBe(3);
    await check.close();
    const all = await cli(["cache", "clear", "--store", db, "--json"]);
    expect(JSON.parse(all.stdout)).toEqual({ deleted: 2 });
  });

  it("refuses a store that does not exist with exit 2 and one line, creating nothing", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "deputy-cache-cli-")), "sub", "runs.db");
    const bad = await cli(["cache", "clear", "--store", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  });
});

describe("deputy run's summary of cached results", () => {
  it("says how many items came from the cache, and marks a cached node", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({ q: z.string() }),
      delegateSafe: true,
      cache: { ttl: 60 },
      run: ({ q }) => q,
    });
    const plan = {
      name: "p",
      nodes: [
        { id: "one", tool: "lookup", args: { q: "x" }, store_as: "one" },
        {
          id: "each",
          tool: "lookup",
          args: { q: "{item}" },
          store_as: "e_{index}",
          for_each: { source: "{artifacts.qs}", max_concurrency: 1 },
        },
      ],
    };
    const store = new MemoryRunStore();
    const options = { tools: [lookup], store, artifacts: { qs: ["a", "b", "a"] } };
    const first = renderManifest(await runPlan(plan, options), false);
    expect(first).toMatch(/each\s+ok\s+items 3\/3 ok, 1 from the cache/);
    expect(first).not.toMatch(/one .*\(cached\)/);
    expect(renderManifest(await runPlan(plan, options), false)).toMatch(/one\s+ok\s+\(cached\)/);
  });
});
