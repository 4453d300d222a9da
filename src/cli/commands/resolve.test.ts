/**
 * The CLI round trip of a delegate node: run (escalated, exit 4) → resolve → resume, then traces stats/export.
 * (That a resolution's call is gated again on resume is tested with the store in delegate-node-executor.test.ts.)
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

const tools = `
export default [
  { name: "list", description: "items", delegateSafe: true, input: { type: "object" }, run: () => ({ items: [{ id: "a" }, { id: "b" }, { id: "c" }] }) },
  { name: "ignore_alert", description: "ignore", delegateSafe: true,
    input: { type: "object", properties: { id: { type: "string" }, password: { type: "string" } }, required: ["id"] },
    run: ({ id }) => ({ ignored: id }) },
  { name: "page", description: "page (side effect)",
    input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, run: ({ id }) => ({ paged: id }) },
];
`;

const plan = {
  name: "cli-delegate",
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

const proposals = [
  {
    node: "triage",
    item: 0,
    proposal: { name: "ignore_alert", arguments: { id: "a", password: "hunter2-pw" }, confidence: 0.9 },
  },
  { node: "triage", item: 1, proposal: { name: "page", arguments: { id: "b" }, confidence: 0.99 } },
  { node: "triage", item: 2, proposal: { name: "ignore_alert", arguments: { id: "c" }, confidence: 0.3 } },
];

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy resolve / traces", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-resolve-"));
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const toolsPath = file("tools.mjs", tools);
  const planPath = file("plan.json", JSON.stringify(plan));
  const scripted = file("proposals.jsonl", proposals.map((p) => JSON.stringify(p)).join("\n") + "\n");
  const store = join(dir, "runs.db");
  const traces = join(dir, "traces.jsonl");

  it("runs to an escalation, takes a person's decisions, resumes to completion and reports traces", async () => {
    const run = await cli([
      "run",
      planPath,
      "--tools",
      toolsPath,
      "--delegate",
      `scripted=${scripted}`,
      "--store",
      store,
      "--traces",
      traces,
      "--json",
    ]);
    expect(run.code).toBe(4);
    const manifest = JSON.parse(run.stdout) as {
      runId: string;
      nodes: Record<string, { escalations: { item: number; verdict: string }[] }>;
    };
    const { runId } = manifest;
    expect(manifest.nodes.triage!.escalations.map((e) => [e.item, e.verdict])).toEqual([
      [1, "side_effect_denied"],
      [2, "low_confidence"],
    ]);

    const bad = async (args: string[], pattern: RegExp) => {
      const r = await cli(["resolve", runId, ...args, "--store", store, "--tools", toolsPath]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(pattern);
    };
    await bad(
      ["triage", "--item", "0", "--skip"],
      /Item 0 of "triage" .* is not escalated \(it is ok\)\. Escalated items: 1, 2/,
    );
    await bad(["triage", "--skip"], /has escalated items \(1, 2\): decide each one by its item \(--item N\)/);
    await bad(["nope", "--skip"], /has no node "nope"/);
    await bad(["triage", "--item", "1"], /A decision gives exactly one of call, value or skip \(got 0\)/);
    await bad(["triage", "--item", "1", "--skip", "--value", "1"], /exactly one/);
    await bad(["triage", "--item", "1", "--value", "{nope"], /valid JSON/);
    await bad(
      ["triage", "--item", "1", "--call", '{"name": "rm"}'],
      /one of the node's tools \(ignore_alert, page\)/,
    );
    await bad(["triage", "--item", "x", "--skip"], /--item/);

    // A call is checked with the tools passed again (never the store's module) at once: the unsafe tool and bad arguments are refused.
    await bad(
      ["triage", "--item", "1", "--call", '{"name": "page", "arguments": {"id": "b"}}'],
      /rejected on resume \(side_effect_denied\)/,
    );
    await bad(
      ["triage", "--item", "1", "--call", '{"name": "ignore_alert", "arguments": {"idd": "b"}}'],
      /\(invalid_args\)/,
    );
    expect(
      (
        await cli([
          "resolve",
          runId,
          "triage",
          "--item",
          "2",
          "--value",
          '{"handled": "by hand"}',
          "--store",
          store,
        ])
      ).code,
    ).toBe(0);
    const first = await cli(["resume", runId, "--store", store, "--tools", toolsPath, "--json"]);
    expect(first.code).toBe(4);
    const m1 = JSON.parse(first.stdout) as {
      nodes: Record<string, { escalations: { item: number; verdict: string; reason: string }[] }>;
      artifacts: Record<string, unknown>;
    };
    expect(m1.nodes.triage!.escalations).toEqual([
      expect.objectContaining({ item: 1, verdict: "side_effect_denied" }),
    ]);
    expect(m1.artifacts.triage_2).toEqual({ handled: "by hand" });

    expect(
      (
        await cli([
          "resolve",
          runId,
          "triage",
          "--item",
          "1",
          "--call",
          '{"name": "ignore_alert", "arguments": {"id": "b"}}',
          "--by",
          "Ada",
          "--store",
          store,
        ])
      ).code,
    ).toBe(0);
    const done = await cli(["resume", runId, "--store", store, "--tools", toolsPath, "--json"]);
    expect(done.code).toBe(0);
    const m2 = JSON.parse(done.stdout);
    expect(m2.artifacts.triage_1).toEqual({ ignored: "b" });
    // Who decided is kept with the decision.
    expect(m2.nodes.triage.itemDetails[1]).toMatchObject({ resolvedBy: "person", decidedBy: "Ada" });

    // Traces: every hop, secrets redacted.
    const text = readFileSync(traces, "utf8");
    expect(text).not.toContain("hunter2-pw");
    const stats = await cli(["traces", "stats", traces, "--json"]);
    expect(stats.code).toBe(0);
    const s = JSON.parse(stats.stdout);
    expect(s.verdicts).toEqual({ accepted: 2, side_effect_denied: 1, low_confidence: 1 });
    expect(s.byBackend["person:Ada"].hops).toBe(1);
    expect((await cli(["traces", "stats", traces])).stdout).toContain("4 proposals for 3 units; 2 accepted");

    const out = join(dir, "chat.jsonl");
    const exported = await cli(["traces", "export", traces, "--format", "chat", "--out", out]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain("1 example(s) written");
    expect(exported.stderr).toContain("1 redacted");
    const example = JSON.parse(readFileSync(out, "utf8").trim()) as {
      messages: { role: string; content: string }[];
    };
    expect(example.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(JSON.parse(example.messages[2]!.content)).toEqual({
      name: "ignore_alert",
      arguments: { id: "b" },
    });
    expect((await cli(["traces", "export", traces, "--format", "csv"])).code).toBe(2);
  });
});
