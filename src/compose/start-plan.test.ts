import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { resolveEscalation } from "../delegate/escalation/resolve-escalation.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { secretShapes } from "../../test/secret-shapes.js";
import { startPlan, startResume, type PlanRunEvent } from "./start-plan.js";
import { runPlan } from "./run.js";

const list = defineTool({
  name: "list",
  description: "alerts",
  delegateSafe: true,
  input: { type: "object" },
  run: () => ({ items: [{ id: "a" }, { id: "b" }] }),
});
const ignore = defineTool({
  name: "ignore_alert",
  description: "Ignore a noisy alert",
  delegateSafe: true,
  input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  run: (args) => ({ ignored: args.id }),
});
const tools = [list, ignore];
const plan = {
  name: "watched",
  nodes: [
    { id: "list", tool: "list", store_as: "list" },
    {
      id: "triage",
      type: "delegate",
      depends_on: ["list"],
      instruction: "Triage {item.id}",
      tools: ["ignore_alert"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "triage_{index}",
      for_each: { source: "{artifacts.list}", select: "items[]", max_concurrency: 1 },
    },
  ],
};
/** Item 0 is accepted; item 1's proposal is unsure, so it escalates. */
const delegate = () =>
  new ScriptedDelegate({
    entries: [0, 1].map((item) => ({
      node: "triage",
      item,
      proposal: { name: "ignore_alert", arguments: { id: "ab"[item]! }, confidence: item === 0 ? 0.9 : 0.2 },
    })),
  });

async function collect(events: AsyncIterable<PlanRunEvent>): Promise<PlanRunEvent[]> {
  const out: PlanRunEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}
const brief = (e: PlanRunEvent) =>
  `${e.type}${"nodeId" in e ? ` ${e.nodeId}` : ""}${"index" in e ? `#${e.index}` : ""}${"item" in e && e.item !== undefined ? `#${e.item}` : ""}`;

describe("startPlan: a run you can watch", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-watch-"));
  const store = new SqliteRunStore(join(dir, "runs.db"));
  afterAll(() => store.close());

  it("streams the run's events in order, numbered from 1, proposals with verdicts, and the manifest runPlan gives", async () => {
    const run = startPlan(plan, { tools, delegates: [delegate()], store });
    const events = await collect(run.events());
    const manifest = await run.manifest;
    expect(manifest.runId).toBe(run.runId);
    expect(manifest.status).toBe("escalated");
    expect(events.map(brief)).toEqual([
      "run-start",
      "node-start list",
      "node-end list",
      "node-start triage",
      "item-start triage#0",
      "proposal-end triage#0",
      "item-end triage#0",
      "item-start triage#1",
      "proposal-end triage#1",
      "escalation-open triage#1",
      "item-end triage#1",
      "node-end triage",
      "run-end",
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const verdicts = events.flatMap((e) => (e.type === "proposal-end" ? [e.verdict] : []));
    expect(verdicts).toEqual(["accepted", "low_confidence"]);
    expect(events.find((e) => e.type === "escalation-open")).toMatchObject({ verdict: "low_confidence" });
    expect(events.at(-1)).toMatchObject({ type: "run-end", status: "escalated" });
    // A second reader gets the same events from the first.
    expect(await collect(run.events())).toEqual(events);
    // `await runPlan()` still answers with the manifest alone.
    const plain = await runPlan(plan, { tools, delegates: [delegate()], store: new MemoryRunStore() });
    expect(plain.status).toBe("escalated");
  });

  it("loses and repeats no event across escalate → resolve → resume: the resume numbers on from the run-end", async () => {
    const first = startPlan(plan, { tools, delegates: [delegate()], store });
    const before = await collect(first.events());
    await resolveEscalation(store, first.runId, "triage", { item: 1, skip: true });
    const resumed = startResume(first.runId, { tools, delegates: [delegate()], store });
    const after = await collect(resumed.events());
    expect((await resumed.manifest).status).toBe("completed");
    const all = [...before, ...after];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(after[0]).toMatchObject({ type: "run-start", resumed: true, seq: before.length + 1 });
    // The resume runs only what was left: item 1, decided by the person (no new escalation, no new proposal).
    expect(after.map(brief)).toEqual([
      "run-start",
      "node-start triage",
      "item-start triage#1",
      "item-end triage#1",
      "node-end triage",
      "run-end",
    ]);
    expect((await store.loadSummary(first.runId))!.run.eventSeq).toBe(all.length);
    // A second resume of the completed run goes on numbering after it.
    const again = await collect(startResume(first.runId, { tools, delegates: [delegate()], store }).events());
    expect(again[0]!.seq).toBe(all.length + 1);
  });

  it("ends its events by throwing what the run threw, and the manifest rejects the same", async () => {
    const run = startPlan(
      { name: "bad", nodes: [{ id: "x", tool: "nope", store_as: "x" }] },
      { tools, store },
    );
    await expect(collect(run.events())).rejects.toThrow(/nope/);
    await expect(run.manifest).rejects.toThrow(/nope/);
  });

  it("redacts a generated secret from every event: a tool's error and a proposal's tool name", async () => {
    await fc.assert(
      fc.asyncProperty(secretShapes, async ({ text, secret }) => {
        const leaky = defineTool({
          name: "leaky",
          description: "fails with a secret in its message",
          input: { type: "object" },
          run: () => {
            throw new Error(`upstream said: ${text}`);
          },
        });
        const run = startPlan(
          {
            name: "leak",
            nodes: [
              { id: "fail", tool: "leaky", store_as: "failed" },
              {
                id: "route",
                type: "delegate",
                instruction: "Route",
                tools: ["ignore_alert"],
                store_as: "routed",
              },
            ],
          },
          {
            tools: [leaky, ignore],
            delegates: [
              new ScriptedDelegate({
                entries: [
                  { node: "route", proposal: { name: `tool ${text}`, arguments: {}, confidence: 1 } },
                ],
              }),
            ],
          },
        );
        const events = await collect(run.events());
        expect(events.some((e) => e.type === "node-end" && e.error)).toBe(true);
        expect(events.some((e) => e.type === "proposal-end" && e.verdict === "unknown_tool")).toBe(true);
        expect(JSON.stringify(events)).not.toContain(secret);
      }),
      { numRuns: 25 },
    );
  });
});
