/**
 * The alert-triage example as a user runs it offline: the seed's delegate node replaying the shipped
 * proposals shows accepted, rejected and escalated items; the README's resolve commands and a resume finish it.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

interface Manifest {
  runId: string;
  nodes: Record<
    string,
    {
      items?: Record<string, number>;
      itemDetails?: Record<string, { verdict: string }>;
      escalations: { item: number; verdict: string }[];
    }
  >;
  artifacts: Record<string, unknown>;
}

describe("examples/alert-triage", () => {
  const previous = process.env.DEPUTY_OUTBOX;
  afterEach(() => {
    if (previous === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = previous;
  });

  it("replays the shipped proposals: accepted, rejected and escalated items, then resolve + resume", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-example-"));
    process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
    const store = join(dir, "runs.db");
    const run = await cli([
      "run",
      here("plan.json"),
      "--tools",
      here("tools.mjs"),
      "--delegate",
      `scripted=${here("proposals.jsonl")}`,
      "--store",
      store,
      "--traces",
      join(dir, "traces.jsonl"),
      "--json",
    ]);
    expect(run.code).toBe(4);
    const m = JSON.parse(run.stdout) as Manifest;
    const node = m.nodes.triage_items!;
    expect(node.items).toMatchObject({ total: 12, ok: 7, escalated: 5 });
    expect(
      Object.values(node.itemDetails ?? {})
        .map((d) => d.verdict)
        .sort(),
    ).toEqual(
      [
        ...Array(7).fill("accepted"),
        "declined",
        "invalid_args",
        "invalid_args",
        "low_confidence",
        "unknown_tool",
      ].sort(),
    );
    expect(node.escalations.map((e) => e.item)).toEqual([2, 5, 8, 10, 11]);
    const sent = readFileSync(process.env.DEPUTY_OUTBOX, "utf8").trim().split("\n");
    expect(sent).toHaveLength(7);

    // The decisions the README shows.
    const resolve = (...args: string[]) =>
      cli(["resolve", m.runId, "triage_items", ...args, "--store", store]);
    expect(
      (
        await resolve(
          "--item",
          "2",
          "--call",
          '{"name": "file_jira_ticket", "arguments": {"alert_id": "ALR-1003", "project": "OPS", "priority": "P2", "title": "Login latency p95 above 4s since the 14:05 deploy"}}',
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await resolve(
          "--item",
          "5",
          "--call",
          '{"name": "escalate_to_pagerduty", "arguments": {"alert_id": "ALR-1006", "urgency": "high", "summary": "Replica lag 15 min; orders page shows stale data"}}',
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await resolve(
          "--item",
          "8",
          "--call",
          '{"name": "escalate_to_pagerduty", "arguments": {"alert_id": "ALR-1009", "urgency": "low", "summary": "Card authorisations declining (provider timeouts)"}}',
        )
      ).code,
    ).toBe(0);
    expect(
      (await resolve("--item", "10", "--value", '{"action": "none", "note": "warehouse team already on it"}'))
        .code,
    ).toBe(0);
    expect((await resolve("--item", "11", "--skip")).code).toBe(0);
    // A resume loads only the tools it is given (a store cannot make it import a module): the same --tools.
    const done = await cli(["resume", m.runId, "--store", store, "--tools", here("tools.mjs"), "--json"]);
    expect(done.code).toBe(0);
    expect((JSON.parse(done.stdout) as Manifest).nodes.triage_items!.items).toMatchObject({
      total: 12,
      ok: 11,
      skipped: 1,
      escalated: 0,
    });
    expect(readFileSync(process.env.DEPUTY_OUTBOX, "utf8").trim().split("\n")).toHaveLength(10);
  });
});
