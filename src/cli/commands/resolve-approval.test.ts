/**
 * Tool approval through the CLI on a real SQLite file: a call that needs approval (a tool's needsApproval function,
 * a tool node's require_approval) pauses before it runs; `deputy resolve --approve` then `deputy resume` runs it
 * once, `--reject --reason` never runs it and keeps the reason; wrong flags are one line, exit 2, nothing changed.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-approval-"));
const outbox = join(dir, "outbox.jsonl");
const wiped = join(dir, "wiped.marker");

const tools = `
import { appendFileSync, writeFileSync } from "node:fs";
export default [
  { name: "send", description: "send money (side effect)",
    input: { type: "object", properties: { to: { type: "string" }, amount: { type: "number" } }, required: ["to", "amount"] },
    needsApproval: ({ amount }) => amount > 100,
    run: ({ to, amount }) => { appendFileSync(${JSON.stringify(outbox)}, JSON.stringify({ to, amount }) + "\\n"); return { sent: to }; } },
  { name: "wipe", description: "wipe a table (side effect)",
    input: { type: "object", properties: { table: { type: "string" } }, required: ["table"] },
    run: ({ table }) => { writeFileSync(${JSON.stringify(wiped)}, table); return { wiped: table }; } },
  { name: "note", description: "a note", delegateSafe: true,
    input: { type: "object", properties: { text: {} } }, run: ({ text }) => ({ noted: text }) },
];
`;

const plan = {
  name: "approvals",
  nodes: [
    { id: "small", tool: "send", args: { to: "ann", amount: 5 }, store_as: "small" },
    { id: "big", tool: "send", args: { to: "bob", amount: 500 }, store_as: "big" },
    { id: "wipe", tool: "wipe", args: { table: "users" }, require_approval: true, store_as: "wiped" },
    { id: "after", tool: "note", args: { text: "{artifacts.big}" }, depends_on: ["big"], store_as: "after" },
    {
      id: "triage",
      type: "delegate",
      instruction: "Note it",
      tools: ["note"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "triage",
    },
  ],
};

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const sent = () =>
  existsSync(outbox)
    ? readFileSync(outbox, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { to: string })
        .map((l) => l.to)
    : [];

interface Manifest {
  runId: string;
  status: string;
  nodes: Record<
    string,
    {
      status: string;
      escalations: { kind?: string; verdict: string; reason: string; call?: unknown }[];
      errors: { code: string; message: string }[];
      details?: Record<string, unknown>;
    }
  >;
  artifacts: Record<string, unknown>;
}

describe("deputy resolve --approve | --reject", () => {
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const toolsPath = file("tools.mjs", tools);
  const planPath = file("plan.json", JSON.stringify(plan));
  const scripted = file(
    "proposals.jsonl",
    JSON.stringify({
      node: "triage",
      proposal: { name: "note", arguments: { text: "x" }, confidence: 0.2 },
    }) + "\n",
  );
  const store = join(dir, "runs.db");
  const traces = join(dir, "traces.jsonl");
  const delegate = ["--delegate", `scripted=${scripted}`, "--traces", traces];

  it("pauses before the call, runs it once when approved, never when rejected, and keeps the reason", async () => {
    const run = await cli(["run", planPath, "--tools", toolsPath, ...delegate, "--store", store, "--json"]);
    expect(run.code).toBe(4);
    const m0 = JSON.parse(run.stdout) as Manifest;
    const { runId } = m0;
    // Nothing that needs approval was called; the call that did not need it was.
    expect(sent()).toEqual(["ann"]);
    expect(existsSync(wiped)).toBe(false);
    expect(m0.nodes.big!.status).toBe("escalated");
    expect(m0.nodes.after!.status).toBe("pending");
    expect(m0.nodes.big!.escalations).toEqual([
      expect.objectContaining({
        kind: "approval",
        verdict: "approval_required",
        call: { name: "send", arguments: { to: "bob", amount: 500 } },
        reason: expect.stringMatching(/requires approval for these arguments/),
      }),
    ]);
    expect(m0.nodes.wipe!.escalations[0]).toMatchObject({
      kind: "approval",
      call: { name: "wipe", arguments: { table: "users" } },
      reason: expect.stringMatching(/plan's node requires approval/),
    });

    // The text summary shows the call that waits and how to decide it.
    const text = (await cli(["runs", runId, "--store", store])).stdout;
    expect(text).toContain('waits for approval: send {"to":"bob","amount":500}');
    expect(text).toContain(
      `approve or reject a call:    deputy resolve ${runId} big [--item N] (--approve | --reject`,
    );
    expect(text).toContain(`decide each escalation with: deputy resolve ${runId} triage`);

    // Wrong flags: one line, exit 2, and the run as it was.
    const before = (await cli(["runs", runId, "--store", store, "--json"])).stdout;
    const bad = async (args: string[], pattern: RegExp) => {
      const r = await cli(["resolve", runId, ...args, "--store", store]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    };
    await bad(
      ["big", "--approve", "--call", '{"name": "send"}'],
      /exactly one of call, value, skip, approve or reject \(got 2\)/,
    );
    await bad(["big", "--approve", "--reject"], /\(got 2\)/);
    await bad(["big", "--approve", "--reason", "ok"], /reason goes with reject only/);
    await bad(
      ["big", "--skip"],
      /waits for approval of its call to "send": decide it with approve or reject/,
    );
    await bad(["triage", "--approve"], /is not waiting for approval \(it escalated: low_confidence\)/);
    await bad(["small", "--approve"], /is not escalated \(it is ok\)/);
    expect((await cli(["runs", runId, "--store", store, "--json"])).stdout).toBe(before);

    expect((await cli(["resolve", runId, "big", "--approve", "--by", "Ada", "--store", store])).code).toBe(0);
    const rejected = await cli([
      "resolve",
      runId,
      "wipe",
      "--reject",
      "--reason",
      "not on a weekday",
      "--by",
      "Bo",
      "--store",
      store,
      "--json",
    ]);
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({
      nodeId: "wipe",
      resolution: { kind: "reject", reason: "not on a weekday", by: "Bo" },
    });
    expect((await cli(["resolve", runId, "triage", "--skip", "--store", store])).code).toBe(0);
    // Deciding records only: nothing ran yet.
    expect(sent()).toEqual(["ann"]);

    const resumed = await cli([
      "resume",
      runId,
      "--store",
      store,
      "--tools",
      toolsPath,
      ...delegate,
      "--json",
    ]);
    expect(resumed.code).toBe(1);
    const m1 = JSON.parse(resumed.stdout) as Manifest;
    expect(sent()).toEqual(["ann", "bob"]);
    expect(existsSync(wiped)).toBe(false);
    expect(m1.artifacts.big).toEqual({ sent: "bob" });
    expect(m1.artifacts.after).toEqual({ noted: { sent: "bob" } });
    expect(m1.nodes.big!.details).toMatchObject({ approval: "approved", decidedBy: "Ada" });
    expect(m1.nodes.wipe!.status).toBe("error");
    expect(m1.nodes.wipe!.errors[0]).toMatchObject({
      code: "TOOL_CALL_REJECTED",
      message: 'A person (Bo) rejected the call of "wipe": not on a weekday.',
    });
    expect(m1.nodes.wipe!.details).toEqual({
      approval: "rejected",
      decidedBy: "Bo",
      reason: "not on a weekday",
    });

    // A rejected call is asked again on the next resume (a new attempt), and the approved one never runs again.
    const again = await cli(["resume", runId, "--store", store, "--tools", toolsPath, ...delegate, "--json"]);
    expect(again.code).toBe(4);
    const m2 = JSON.parse(again.stdout) as Manifest;
    expect(m2.nodes.wipe!.escalations[0]).toMatchObject({ kind: "approval" });
    expect(sent()).toEqual(["ann", "bob"]);
    expect(existsSync(wiped)).toBe(false);
  });
});
