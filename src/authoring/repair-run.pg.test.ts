/** Repair lineage on a real PostgreSQL server: the repair records, the child run and its copied state, `deputy runs`. */
import { describe, expect, inject, it } from "vitest";
import { freshDatabase } from "../../test/postgres-database.js";
import { main } from "../cli/main.js";
import { resumeRun, runPlan } from "../compose/index.js";
import { PostgresRunStore } from "../store/postgres-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { approveRepair, pendingRepairs } from "./repair-decisions.js";
import { repairRun } from "./repair-run.js";
import { scriptedModel } from "./scripted-model.js";

const ran: string[] = [];
const url = { type: "object", properties: { url: { type: "string" } }, required: ["url"] } as const;
const tools = [
  defineTool({
    name: "list_items",
    description: "List",
    input: { type: "object" },
    delegateSafe: true,
    run: () => (ran.push("list"), ["a", "b"]),
  }),
  defineTool({
    name: "fetch_v1",
    description: "Fetch (retired)",
    input: url,
    delegateSafe: true,
    run: () => {
      ran.push("fetch_v1");
      throw new Error("retired");
    },
  }),
  defineTool({
    name: "fetch_v2",
    description: "Fetch",
    input: url,
    delegateSafe: true,
    run: ({ url }: { url: string }) => (ran.push("fetch_v2"), `page of ${url}`),
  }),
];
const fetch = { id: "fetch", tool: "fetch_v1", depends_on: ["list"], args: { url: "u" }, store_as: "page" };
const plan = { name: "pg-repair", nodes: [{ id: "list", tool: "list_items", store_as: "listed" }, fetch] };

describe("repair on PostgreSQL", () => {
  it("keeps the repair with the run, and the child run's lineage and copied state", async () => {
    const db = await freshDatabase(inject("pgUrl"));
    const store = new PostgresRunStore(db);
    try {
      const failed = await runPlan(plan, { tools, store });
      expect(failed.status).toBe("failed");
      const model = await scriptedModel([JSON.stringify({ nodes: [{ ...fetch, tool: "fetch_v2" }] })]);
      const result = await repairRun(store, failed.runId, { model, tools });
      expect(result.ok).toBe(true);
      expect((await pendingRepairs(store)).map((p) => [p.runId, p.repair.id])).toEqual([
        [failed.runId, "r1"],
      ]);
      ran.length = 0;
      const { childRunId } = await approveRepair(store, failed.runId, { by: "ana" });
      const manifest = await resumeRun(childRunId, { store, tools });
      expect(manifest.status).toBe("completed");
      expect(ran).toEqual(["fetch_v2"]);

      // What another process sees, through a store of its own.
      const other = new PostgresRunStore(db);
      try {
        const child = (await other.load(childRunId))!;
        expect(child.run).toMatchObject({ parentRunId: failed.runId, rootRunId: failed.runId });
        expect(child.artifacts).toMatchObject({ listed: ["a", "b"], page: "page of u" });
        const parent = (await other.load(failed.runId))!;
        expect(parent.run.repairs).toMatchObject([
          { id: "r1", status: "applied", childRunId, decidedBy: "ana", diff: [{ field: "tool" }] },
        ]);
      } finally {
        await other.close();
      }

      let stdout = "";
      const code = await main(["runs", "--store", db], { stdout: (t) => (stdout += t), stderr: () => {} });
      expect(code).toBe(0);
      expect(stdout).toContain(`← repair of ${failed.runId}`);
      expect(stdout).toContain(`→ ${childRunId}`);
    } finally {
      await store.close();
    }
  });
});
