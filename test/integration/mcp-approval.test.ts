/**
 * A trusted MCP server's `destructiveHint: true` makes its tool wait for a person's approval before each call
 * (an untrusted server's hint decides nothing): a real stdio server through the official client, a real
 * SQLite store, and the server's own record of the calls it got.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resumeRun, runPlan } from "../../src/compose/index.js";
import { resolveEscalation } from "../../src/delegate/escalation/resolve-escalation.js";
import { mcpTools } from "../../src/mcp/mcp-tools.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";

const HOSTILE = resolve(import.meta.dirname, "../../test/fixtures/mcp/hostile-server.mjs");
const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-approval-"));
const callsFile = join(dir, "calls.txt");
const called = () =>
  existsSync(callsFile) ? readFileSync(callsFile, "utf8").split("\n").filter(Boolean) : [];
const source = (trusted: boolean) => ({
  command: process.execPath,
  args: [HOSTILE, "--destructive", "--calls-file", callsFile],
  trusted,
});

const plan = {
  name: "drop",
  nodes: [{ id: "drop", tool: "drop_table", args: { table: "users" }, store_as: "dropped" }],
};

describe("MCP destructiveHint → approval", () => {
  it("an untrusted server's destructiveHint asks for nothing (its hints decide nothing)", async () => {
    await using untrusted = await mcpTools(source(false));
    expect(untrusted.tools.find((t) => t.name === "drop_table")?.needsApproval).toBeUndefined();
  });

  it("a trusted server's destructive tool pauses before the call; approved, it is called once", async () => {
    const store = new SqliteRunStore(join(dir, "runs.db"));
    try {
      await using trusted = await mcpTools(source(true));
      expect(trusted.tools.find((t) => t.name === "drop_table")?.needsApproval).toBe(true);
      const manifest = await runPlan(plan, { tools: trusted, store });
      expect(manifest.status).toBe("escalated");
      expect(manifest.nodes.drop!.escalations[0]).toMatchObject({
        kind: "approval",
        call: { name: "drop_table", arguments: { table: "users" } },
        reason: expect.stringMatching(/marked destructive by its trusted MCP server/),
      });
      expect(called()).toEqual([]);

      await resolveEscalation(store, manifest.runId, "drop", { approve: true, by: "Ada" });
      const done = await resumeRun(manifest.runId, { tools: trusted, store });
      expect(done.status).toBe("completed");
      expect(done.artifacts.dropped).toBe("dropped users");
      expect(called()).toEqual(["drop_table"]);
    } finally {
      await store.close();
    }
  });
});
