/**
 * The toolkit never approves its own plan (issue 38, item 1): a plan written for an objective whose tool nodes
 * call a tool with side effects is recorded and answers `{ pending_approval, run_id }`; `plan_resume` and the
 * engine's resume refuse it; a person's `approveAuthoredRun` gives the run to start, which records the approval.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resumeRun, runPlan } from "../compose/index.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { approveAuthoredRun } from "./authored-approval.js";
import { planTools } from "./plan-tools.js";
import { scriptedModel } from "./scripted-model.js";

let posts = 0;
const post = defineTool({
  name: "post_message",
  description: "Post to a channel",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ({ text }: { text: string }) => (posts++, { posted: text }),
});
const written = {
  name: "announce",
  nodes: [{ id: "say", tool: "post_message", args: { text: "hello" }, store_as: "said" }],
};
const ctx = {
  signal: new AbortController().signal,
  idempotencyKey: "p",
  runId: "p",
  nodeId: "p",
  attempt: 1,
};

describe("a toolkit's plan that waits for a person", () => {
  it("is recorded, not run, until a person approves it; the approval is kept with the run", async () => {
    const store = new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-approval-")), "runs.db"));
    try {
      const model = await scriptedModel([JSON.stringify(written)]);
      const toolkit = planTools({ tools: [post], store, model });
      const byName = Object.fromEntries(toolkit.tools.map((t) => [t.name, t]));
      const answer = (await byName.plan_execute!.run({ objective: "Say hello" }, ctx)) as Record<string, any>;
      expect(answer).toMatchObject({
        pending_approval: true,
        calls: [{ nodeId: "say", tools: ["post_message"] }],
      });
      const runId = answer.run_id as string;
      expect(await byName.plan_resume!.run({ run_id: runId }, ctx)).toMatchObject({
        error: "approval_pending",
      });
      expect(await byName.plan_status!.run({ run_id: runId }, ctx)).toMatchObject({ run_id: runId });
      await expect(resumeRun(runId, { store, tools: [post] })).rejects.toMatchObject({
        code: "RUN_AWAITS_APPROVAL",
      });
      await toolkit.settle();
      expect(posts).toBe(0);

      const approved = await approveAuthoredRun(store, runId, { by: "ada" });
      expect(approved.authored.approval).toMatchObject({
        status: "approved",
        how: "host",
        by: "ada",
        from: runId,
      });
      const manifest = await runPlan(approved.plan, {
        store,
        tools: [post],
        runId: approved.runId,
        meta: { authored: approved.authored },
      });
      expect(manifest.status).toBe("completed");
      expect(posts).toBe(1);
      expect((await store.load(approved.runId))!.run.options.authored?.approval).toMatchObject({ by: "ada" });
      // Approved once: the pending run is done with, and still never resumes.
      await expect(approveAuthoredRun(store, runId)).rejects.toThrow(/not yet approved/);
      await expect(resumeRun(runId, { store, tools: [post] })).rejects.toMatchObject({
        code: "RUN_AWAITS_APPROVAL",
      });
      expect(posts).toBe(1);
    } finally {
      await store.close();
    }
  });
});
