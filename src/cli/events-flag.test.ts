import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { main } from "./main.js";

// `deputy run|resume --events`: the run's events as JSON lines on stdout, on a real SQLite file, numbered on
// across an escalation, a person's decision and the resume.

const tools = `
export default [
  { name: "list", description: "alerts", delegateSafe: true, input: { type: "object" },
    run: () => ({ items: [{ id: "a" }, { id: "b" }] }) },
  { name: "ignore_alert", description: "Ignore a noisy alert", delegateSafe: true,
    input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    run: ({ id }) => ({ ignored: id }) },
];
`;
const plan = {
  name: "watched-cli",
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
const proposals = [0, 1]
  .map((item) =>
    JSON.stringify({
      node: "triage",
      item,
      proposal: { name: "ignore_alert", arguments: { id: "ab"[item] }, confidence: item === 0 ? 0.9 : 0.2 },
    }),
  )
  .join("\n");

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}
const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { seq?: number; type: string; [k: string]: unknown });

describe("deputy run|resume --events", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-events-"));
  writeFileSync(join(dir, "tools.mjs"), tools);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  writeFileSync(join(dir, "proposals.jsonl"), proposals);
  const db = join(dir, "runs.db");
  const common = ["--tools", join(dir, "tools.mjs"), "--store", db];

  it("streams JSON lines that number on across escalate → resolve → resume, the manifest last with --json", async () => {
    const run = await cli([
      "run",
      join(dir, "plan.json"),
      ...common,
      "--delegate",
      `scripted=${join(dir, "proposals.jsonl")}`,
      "--events",
    ]);
    expect(run.code).toBe(4); // escalated
    const first = lines(run.stdout); // stdout holds nothing but the events …
    expect(run.stderr).toMatch(/escalated/); // … the summary goes to stderr
    expect(first.map((e) => e.seq)).toEqual(first.map((_, i) => i + 1));
    expect(first[0]).toMatchObject({ type: "run-start", resumed: false });
    expect(first.filter((e) => e.type === "proposal-end").map((e) => e.verdict)).toEqual([
      "accepted",
      "low_confidence",
    ]);
    expect(first.find((e) => e.type === "escalation-open")).toMatchObject({ nodeId: "triage", item: 1 });
    const runId = first[0]!.runId as string;
    const store = new SqliteRunStore(db);
    expect((await store.loadSummary(runId))!.run.eventSeq).toBe(first.length);
    await store.close();

    const resolved = await cli(["resolve", runId, "triage", "--item", "1", "--skip", "--store", db]);
    expect(resolved.code).toBe(0);
    const resumed = await cli(["resume", runId, ...common, "--events", "--json"]);
    expect(resumed.code).toBe(0);
    const after = lines(resumed.stdout);
    const manifest = after.pop()!;
    expect(manifest).toMatchObject({ type: "manifest", manifest: { runId, status: "completed" } });
    const all = [...first, ...after];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(after.map((e) => e.type)).toEqual([
      "run-start",
      "node-start",
      "item-start",
      "item-end",
      "node-end",
      "run-end",
    ]);
  });

  it("leaves stdout as it was without --events", async () => {
    const run = await cli([
      "run",
      join(dir, "plan.json"),
      ...common,
      "--delegate",
      `scripted=${join(dir, "proposals.jsonl")}`,
      "--json",
    ]);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "escalated" });
  });
});
