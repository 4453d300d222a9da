import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunError } from "../../errors/run-error.js";
import { resumeRun, runPlan } from "../../compose/index.js";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { defineTool } from "../../tools/define-tool.js";
import { ScriptedDelegate } from "../scripted-delegate.js";
import { resolveEscalation } from "./resolve-escalation.js";

const ran: { tool: string; args: unknown }[] = [];
const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateSafe: true,
  input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  run: (args) => (ran.push({ tool: "ignore_alert", args }), { ignored: args.id }),
});
const page = defineTool({
  name: "page",
  description: "Page the on-call (a side effect)",
  input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  run: (args) => (ran.push({ tool: "page", args }), { paged: args.id }),
});
const list = defineTool({
  name: "list",
  description: "alerts",
  delegateSafe: true,
  input: { type: "object" },
  run: () => ({ items: [{ id: "a" }, { id: "b" }, { id: "c" }] }),
});
const tools = [list, ignore, page];
const plan = {
  name: "resolve-lib",
  nodes: [
    { id: "list", tool: "list", store_as: "list" },
    {
      id: "triage",
      type: "delegate",
      depends_on: ["list"],
      instruction: "Triage {item.id}",
      tools: ["ignore_alert", "page"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "triage_{index}",
      for_each: { source: "{artifacts.list}", select: "items[]" },
    },
  ],
};
const delegate = () =>
  new ScriptedDelegate({
    entries: [0, 1, 2].map((item) => ({
      node: "triage",
      item,
      proposal: { name: "ignore_alert", arguments: { id: "abc"[item]! }, confidence: item === 0 ? 0.9 : 0.2 },
    })),
  });

describe("resolveEscalation", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-resolve-lib-"));
  const store = new SqliteRunStore(join(dir, "runs.db"));
  afterAll(() => store.close());

  it("records a person's decisions, refuses what does not fit, and resume applies them", async () => {
    const first = await runPlan(plan, { tools, delegates: [delegate()], store });
    expect(first.status).toBe("escalated");
    const { runId } = first;

    // Nothing is written for decisions that do not fit.
    await expect(resolveEscalation(store, "nope", "triage", { skip: true })).rejects.toSatisfy(
      (e) => RunError.isInstance(e) && e.code === "RUN_NOT_FOUND",
    );
    await expect(resolveEscalation(store, runId, "triage", { item: 0, skip: true })).rejects.toThrow(
      /Item 0 of "triage" .* is not escalated \(it is ok\)/,
    );
    await expect(resolveEscalation(store, runId, "triage", { skip: true })).rejects.toThrow(
      /has escalated items \(1, 2\): decide each one by its item/,
    );
    await expect(
      resolveEscalation(store, runId, "triage", { item: 1, skip: true, value: 1 } as never),
    ).rejects.toSatisfy(
      (e) =>
        RunError.isInstance(e) &&
        e.code === "RESOLUTION_INVALID" &&
        /exactly one of call, value or skip \(got 2\)/.test(e.message),
    );
    await expect(
      resolveEscalation(store, runId, "triage", { item: 1, call: { name: "rm" } }),
    ).rejects.toThrow(/one of the node's tools \(ignore_alert, page\)/);
    await expect(
      resolveEscalation(store, runId, "triage", {
        item: 1,
        tools,
        call: { name: "page", arguments: { id: "b" } },
      }),
    ).rejects.toThrow(/rejected on resume \(side_effect_denied\)/);
    await expect(
      resolveEscalation(store, runId, "triage", {
        item: 1,
        tools,
        call: { name: "ignore_alert", arguments: {} },
      }),
    ).rejects.toThrow(/\(invalid_args\)/);
    expect((await store.load(runId))!.items.triage![1]!.escalation!.resolution).toBeUndefined();

    const call = await resolveEscalation(store, runId, "triage", {
      item: 1,
      tools,
      call: { name: "ignore_alert", arguments: { id: "b" } },
    });
    expect(call).toEqual({
      runId,
      nodeId: "triage",
      item: 1,
      resolution: { kind: "call", call: { name: "ignore_alert", arguments: { id: "b" } } },
    });
    await resolveEscalation(store, runId, "triage", { item: 2, value: { handled: "by hand" } });

    ran.length = 0;
    const second = await resumeRun(runId, { tools, delegates: [delegate()], store });
    expect(second.status).toBe("completed");
    expect(ran).toEqual([{ tool: "ignore_alert", args: { id: "b" } }]);
    const stored = await store.load(runId);
    expect(stored!.artifacts.triage_1).toEqual({ ignored: "b" });
    expect(stored!.artifacts.triage_2).toEqual({ handled: "by hand" });
  });
});
