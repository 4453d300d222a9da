import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { resumeRun, runPlan } from "../compose/index.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { acquireRunLease } from "../store/run-lease.js";
import type { RunStore } from "../store/run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { approveRepair, pendingRepairs, rejectRepair } from "./repair-decisions.js";
import { repairRun } from "./repair-run.js";
import { renderRepairDiff } from "./repair-diff.js";
import { scriptedModel } from "./scripted-model.js";

let calls: string[] = [];
beforeEach(() => {
  calls = [];
});

const urlInput = {
  type: "object",
  properties: { url: { type: "string" } },
  required: ["url"],
} as const;
const nInput = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const;
const tools = [
  defineTool({
    name: "list_items",
    description: "List the items",
    input: { type: "object" },
    delegateSafe: true,
    run: () => {
      calls.push("list");
      return { items: [{ n: 1 }, { n: 2 }, { n: 3 }] };
    },
  }),
  defineTool({
    name: "fetch_v1",
    description: "Fetch a page (retired)",
    input: urlInput,
    delegateSafe: true,
    run: () => {
      calls.push("fetch_v1");
      throw new Error("fetch_v1 is retired; password=hunter2-secret");
    },
  }),
  defineTool({
    name: "fetch_v2",
    description: "Fetch a page",
    input: urlInput,
    delegateSafe: true,
    run: ({ url }: { url: string }) => {
      calls.push("fetch_v2");
      return `page of ${url}`;
    },
  }),
  defineTool({
    name: "summarize",
    description: "Summarise a text",
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    delegateSafe: true,
    run: ({ text }: { text: string }) => {
      calls.push("summarize");
      return text.length;
    },
  }),
  defineTool({
    name: "flaky",
    description: "Fails on 2",
    input: nInput,
    delegateSafe: true,
    run: ({ n }: { n: number }) => {
      calls.push(`flaky:${n}`);
      if (n === 2) throw new Error("two is bad");
      return n * 10;
    },
  }),
  defineTool({
    name: "steady",
    description: "Never fails",
    input: nInput,
    delegateSafe: true,
    run: ({ n }: { n: number }) => {
      calls.push(`steady:${n}`);
      return n * 100;
    },
  }),
  defineTool({
    name: "wipe",
    description: "Delete everything",
    input: { type: "object" },
    run: () => "gone",
  }),
];
const allowedTools = ["list_items", "fetch_v1", "fetch_v2", "summarize", "flaky", "steady"];

const plan = {
  name: "fetch-and-sum",
  nodes: [
    { id: "list", tool: "list_items", store_as: "listed" },
    { id: "fetch", tool: "fetch_v1", args: { url: "http://x" }, store_as: "page" },
    {
      id: "sum",
      tool: "summarize",
      depends_on: ["fetch"],
      args: { text: "{artifacts.page}" },
      store_as: "summary",
    },
  ],
};
const fixed = { id: "fetch", tool: "fetch_v2", args: { url: "http://x" }, store_as: "page" };

async function failedRun(store: RunStore = new MemoryRunStore(), p: unknown = plan) {
  const manifest = await runPlan(p, { tools, store });
  expect(manifest.status).toBe("failed");
  calls = [];
  return { store, runId: manifest.runId };
}

async function model(...answers: unknown[]) {
  return scriptedModel(answers.map((a) => (typeof a === "string" ? a : JSON.stringify(a))));
}

describe("repairRun", () => {
  it("keeps a valid delta as a pending repair, with the diff, after one call that saw the plan and the errors", async () => {
    const { store, runId } = await failedRun();
    const m = await model({ nodes: [fixed] });
    const result = await repairRun(store, runId, { model: m, tools, allowedTools });
    expect(result.ok).toBe(true);
    expect(result.repair).toMatchObject({
      id: "r1",
      round: 1,
      status: "pending",
      eligible: ["fetch", "sum"],
    });
    expect(result.repair.diff).toEqual([
      { nodeId: "fetch", field: "tool", before: "fetch_v1", after: "fetch_v2" },
    ]);
    expect(renderRepairDiff(result.repair.diff!)).toBe('~ fetch\n    tool: "fetch_v1" → "fetch_v2"\n');
    expect(m.doGenerateCalls).toHaveLength(1);
    const call = m.doGenerateCalls[0]!;
    expect(call.responseFormat).toMatchObject({ type: "json", name: "plan_delta" });
    const prompt = JSON.stringify(call.prompt);
    expect(prompt).toContain("fetch_v2"); // the catalogue
    expect(prompt).toContain("fetch_v1 is retired"); // the error
    expect(prompt).not.toContain("hunter2"); // redacted like traces
    expect(prompt).not.toContain("wipe"); // only the allowlist is shown
    expect(await pendingRepairs(store)).toEqual([
      { runId, planName: "fetch-and-sum", repair: result.repair },
    ]);
  });

  it("applies an approved repair as a child run that reuses every completed node and runs only the replaced ones and their dependents", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deputy-repair-")), "runs.db");
    const { store, runId } = await failedRun(new SqliteRunStore(path));
    await repairRun(store, runId, { model: await model({ nodes: [fixed] }), tools, allowedTools });
    const approved = await approveRepair(store, runId, { by: "ana" });
    expect(approved.child).toMatchObject({ parentRunId: runId, rootRunId: runId, status: "interrupted" });
    expect(approved.repair).toMatchObject({
      status: "applied",
      decidedBy: "ana",
      childRunId: approved.childRunId,
    });
    const manifest = await resumeRun(approved.childRunId, { store, tools });
    expect(manifest.status).toBe("completed");
    expect(calls.sort()).toEqual(["fetch_v2", "summarize"]); // `list` completed in the parent: not run again
    const child = (await store.load(approved.childRunId))!;
    expect(child.artifacts).toMatchObject({
      listed: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] },
      summary: "page of http://x".length,
    });
    expect((child.run.plan as typeof plan).nodes[1]).toEqual(fixed);
    const parent = (await store.load(runId))!;
    expect(parent.run.status).toBe("failed"); // the parent stays as it ran
    expect(parent.run.repairs![0]).toMatchObject({ status: "applied", childRunId: approved.childRunId });
    await expect(approveRepair(store, runId)).rejects.toMatchObject({ code: "ALREADY_REPAIRED" });
    await store.close();
  });

  it("reuses the completed items of a replaced for_each node and runs only the others", async () => {
    const each = {
      id: "each",
      tool: "flaky",
      depends_on: ["list"],
      args: { n: "{item.n}" },
      store_as: "out_{index}",
      for_each: { source: "{artifacts.listed}", select: "items[]", on_item_error: "fail" as const },
    };
    const { store, runId } = await failedRun(new MemoryRunStore(), {
      name: "items",
      nodes: [{ id: "list", tool: "list_items", store_as: "listed" }, each],
    });
    const parentItems = (await store.load(runId))!.items.each!;
    const okBefore = Object.values(parentItems)
      .filter((i) => i.status === "ok")
      .map((i) => i.index);
    expect(okBefore.length).toBeGreaterThan(0);
    const result = await repairRun(store, runId, {
      model: await model({ nodes: [{ ...each, tool: "steady" }] }),
      tools,
      allowedTools,
    });
    expect(result.ok).toBe(true);
    const { childRunId } = await approveRepair(store, runId);
    const manifest = await resumeRun(childRunId, { store, tools });
    expect(manifest.status).toBe("completed");
    const ran = calls.map((c) => Number(c.split(":")[1]) - 1);
    expect(calls.every((c) => c.startsWith("steady:"))).toBe(true);
    for (const index of okBefore) expect(ran).not.toContain(index); // completed items are not run again
    expect(manifest.nodes.each!.items).toMatchObject({ total: 3, ok: 3, reused: okBefore.length });
  });

  it("records the attempt before the model is asked", async () => {
    const { store, runId } = await failedRun();
    let seen: unknown;
    const m = await model({ nodes: [fixed] });
    const doGenerate = m.doGenerate.bind(m);
    m.doGenerate = async (call: LanguageModelV4CallOptions) => {
      seen = (await store.load(runId))!.run.repairs;
      return doGenerate(call);
    };
    await repairRun(store, runId, { model: m, tools, allowedTools });
    expect(seen).toMatchObject([{ id: "r1", status: "asking" }]);
  });

  it("spends the round when the model cannot be asked (MODEL_FAILED), and refuses once the rounds are used up", async () => {
    const { store, runId } = await failedRun();
    await expect(
      repairRun(store, runId, { model: await model(), tools, allowedTools, maxRounds: 1 }),
    ).rejects.toMatchObject({ code: "MODEL_FAILED" });
    expect((await store.load(runId))!.run.repairs).toMatchObject([{ status: "failed" }]);
    const before = await store.load(runId);
    await expect(
      repairRun(store, runId, { model: await model({ nodes: [fixed] }), tools, allowedTools, maxRounds: 1 }),
    ).rejects.toMatchObject({ code: "ROUNDS_USED_UP" });
    expect(await store.load(runId)).toEqual(before);
  });

  it("a correction that cannot be asked still says what was wrong with the delta, and keeps it with the spent round", async () => {
    const { store, runId } = await failedRun();
    // One answer only: a delta that moves the node's result, then nothing for the correction round.
    const m = await model({ nodes: [{ ...fixed, store_as: "elsewhere" }] });
    const refused = repairRun(store, runId, { model: m, tools, allowedTools });
    await expect(refused).rejects.toMatchObject({ code: "MODEL_FAILED" });
    await expect(refused).rejects.toThrow(
      /delta was refused \(changed_store_as: .*could not be asked for the correction/,
    );
    const [repair] = (await store.load(runId))!.run.repairs!;
    expect(repair).toMatchObject({ status: "failed" });
    expect(repair!.issues!.map((i) => i.code)).toEqual(["changed_store_as", "model_failed"]);
  });

  it("sends the issues of a refused delta back once, and keeps the corrected one", async () => {
    const { store, runId } = await failedRun();
    const m = await model({ nodes: [{ ...fixed, store_as: "elsewhere" }] }, { nodes: [fixed] });
    const result = await repairRun(store, runId, { model: m, tools, allowedTools });
    expect(result.ok).toBe(true);
    expect(result.usage.calls).toBe(2);
    const correction = JSON.stringify(m.doGenerateCalls[1]!.prompt.at(-1));
    expect(correction).toContain("changed_store_as");
    expect(correction).toContain("[fetch]");
  });

  it("refuses hostile answers after the one correction, asking no third time, and records them as invalid", async () => {
    const cases: [unknown, string][] = [
      ["this is not JSON", "not_json"],
      [{ nodes: [{ ...fixed, tool: "wipe", args: {} }] }, "tool_not_allowed"],
      [{ nodes: [{ ...fixed, store_as: "elsewhere" }] }, "changed_store_as"],
      [{ nodes: [{ ...fixed, depends_on: ["list"] }] }, "changed_depends_on"],
      [
        { nodes: [fixed, { id: "extra", tool: "fetch_v2", args: { url: "u" }, store_as: "e" }] },
        "added_node",
      ],
      [{ nodes: [{ ...plan.nodes[0], tool: "fetch_v2", args: { url: "u" } }] }, "not_eligible"],
      [{ nodes: [{ id: "fetch", remove: true }] }, "removed_node"],
      [{ nodes: [] }, "empty_delta"],
      [{ nodes: [{ ...fixed, args: {} }] }, "missing_arg"],
    ];
    for (const [answer, code] of cases) {
      const { store, runId } = await failedRun();
      const m = await model(answer, answer, { nodes: [fixed] });
      const result = await repairRun(store, runId, { model: m, tools, allowedTools });
      expect(result.ok, code).toBe(false);
      expect(m.doGenerateCalls, code).toHaveLength(2);
      if (result.ok) continue;
      expect(
        result.issues.map((i) => i.code),
        code,
      ).toContain(code);
      expect((await store.load(runId))!.run.repairs, code).toMatchObject([{ status: "invalid" }]);
    }
  });

  it("refuses, changing nothing: a run that did not fail, nothing eligible, no model, a pending repair, one in progress", async () => {
    const store = new MemoryRunStore();
    const done = await runPlan({ name: "ok", nodes: [plan.nodes[0]!] }, { tools, store });
    const partial = await runPlan(
      {
        name: "partial",
        nodes: [
          plan.nodes[0]!,
          {
            id: "each",
            tool: "flaky",
            depends_on: ["list"],
            args: { n: "{item.n}" },
            store_as: "o_{index}",
            for_each: { source: "{artifacts.listed}", select: "items[]", on_item_error: "collect" },
          },
        ],
      },
      { tools, store },
    );
    expect(partial.status).toBe("partial");
    const { runId } = await failedRun(store);
    const m = await model({ nodes: [fixed] }, { nodes: [fixed] });
    const refusals: [string, () => Promise<unknown>][] = [
      ["RUN_NOT_REPAIRABLE", () => repairRun(store, done.runId, { model: m, tools })],
      ["NOTHING_ELIGIBLE", () => repairRun(store, partial.runId, { model: m, tools })],
      ["NO_MODEL", () => repairRun(store, runId, { model: undefined, tools })],
      ["RUN_NOT_FOUND", () => repairRun(store, "nope", { model: m, tools })],
    ];
    const snapshot = async () => Promise.all([done.runId, partial.runId, runId].map((id) => store.load(id)));
    const before = await snapshot();
    for (const [code, attempt] of refusals) await expect(attempt(), code).rejects.toMatchObject({ code });
    expect(await snapshot()).toEqual(before);

    const held = await acquireRunLease(store, runId, { owner: "someone-else:1:abc" });
    await expect(repairRun(store, runId, { model: m, tools, allowedTools })).rejects.toMatchObject({
      code: "REPAIR_IN_PROGRESS",
    });
    await held.release();
    expect(await snapshot()).toEqual(before);

    await repairRun(store, runId, { model: m, tools, allowedTools });
    const pending = await snapshot();
    await expect(repairRun(store, runId, { model: m, tools, allowedTools })).rejects.toMatchObject({
      code: "REPAIR_PENDING",
    });
    expect(await snapshot()).toEqual(pending);
    expect(m.doGenerateCalls).toHaveLength(1); // no refusal asked the model
  });

  it("rejects a pending repair (kept, with who and why), after which another round may be asked", async () => {
    const { store, runId } = await failedRun();
    await repairRun(store, runId, { model: await model({ nodes: [fixed] }), tools, allowedTools });
    const rejected = await rejectRepair(store, runId, { by: "ana", reason: "use the cache instead" });
    expect(rejected).toMatchObject({
      id: "r1",
      status: "rejected",
      decidedBy: "ana",
      reason: "use the cache instead",
    });
    await expect(approveRepair(store, runId)).rejects.toMatchObject({ code: "NO_PENDING_REPAIR" });
    expect(await pendingRepairs(store)).toEqual([]);
    const second = await repairRun(store, runId, {
      model: await model({ nodes: [fixed] }),
      tools,
      allowedTools,
    });
    expect(second.repair).toMatchObject({ id: "r2", round: 2, status: "pending" });
  });

  it("counts the rounds over the lineage: a child of a repaired run has what its parent left", async () => {
    const { store, runId } = await failedRun();
    // The repair replaces the fetch with one that still fails: the child fails too.
    await repairRun(store, runId, {
      model: await model({ nodes: [{ ...fixed, tool: "fetch_v1", args: { url: "http://y" } }] }),
      tools,
      allowedTools,
    });
    const { childRunId } = await approveRepair(store, runId);
    expect((await resumeRun(childRunId, { store, tools })).status).toBe("failed");
    const second = await repairRun(store, childRunId, {
      model: await model({ nodes: [fixed] }),
      tools,
      allowedTools,
    });
    expect(second.repair).toMatchObject({ id: "r2", round: 2 });
    const grandchild = await approveRepair(store, childRunId);
    expect(grandchild.child).toMatchObject({ parentRunId: childRunId, rootRunId: runId });
  });

  it("keeps an authored run's recorded allowlist as the boundary", async () => {
    const store = new MemoryRunStore();
    const manifest = await runPlan(plan, {
      tools,
      store,
      meta: {
        authored: { objective: "o", model: "m", allowedTools: ["list_items", "fetch_v1", "summarize"] },
      },
    });
    const result = await repairRun(store, manifest.runId, {
      model: await model({ nodes: [fixed] }, { nodes: [fixed] }),
      tools,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.code)).toContain("tool_not_allowed");
  });
});
