/**
 * The support-routing example as a user runs it offline: the delegate node replaying the shipped proposals routes
 * what the gate accepts, escalates the rest and leaves them waiting for a person; a resolve and a resume finish it.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { renderTsv } from "./data/render.mjs";

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
}

const outboxLines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("examples/support-routing", () => {
  const previous = process.env.DEPUTY_OUTBOX;
  afterEach(() => {
    if (previous === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = previous;
  });

  it("renders a ticket as data/render.mjs renders the team's decisions: same instruction, facts and tools", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-support-"));
    process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
    const traces = join(dir, "traces.jsonl");
    const args = ["--delegate", `scripted=${here("proposals.jsonl")}`, "--store", join(dir, "runs.db")];
    await cli(["run", here("plan.json"), "--tools", here("tools.mjs"), ...args, "--traces", traces]);
    const ran = readFileSync(traces, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { item: number; instruction: string; facts: unknown; tools: unknown });
    const { tickets } = JSON.parse(readFileSync(here("tickets.json"), "utf8")) as {
      tickets: Record<string, string>[];
    };
    // Each ticket as a line of the team's TSV, with a call of the policy (the call is not compared).
    const tsv = tickets
      .map((t) =>
        [t.id, t.customer_tier, t.channel, "close_ticket", "spam", "-", t.subject, t.body].join("\t"),
      )
      .join("\n");
    const rendered = renderTsv(tsv, "tickets");
    expect(ran).toHaveLength(tickets.length);
    for (const trace of ran) {
      const want = rendered[trace.item]!;
      expect({ instruction: trace.instruction, facts: trace.facts, tools: trace.tools }).toEqual({
        instruction: want.instruction,
        facts: want.facts,
        tools: want.tools,
      });
    }
  });

  it("routes what the gate accepts, escalates the rest, and a person's decisions finish the run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-support-"));
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
    const node = m.nodes.route_tickets!;
    expect(node.items).toMatchObject({ total: 11, ok: 6, escalated: 5 });
    const verdicts = Object.entries(node.itemDetails ?? {}).map(([item, d]) => [Number(item), d.verdict]);
    expect(Object.fromEntries(verdicts)).toEqual({
      0: "accepted",
      1: "accepted",
      2: "accepted",
      3: "accepted",
      4: "low_confidence",
      5: "invalid_args",
      6: "unknown_tool",
      7: "accepted",
      8: "invalid_args",
      9: "declined",
      10: "accepted",
    });
    expect(node.escalations.map((e) => e.item)).toEqual([4, 5, 6, 8, 9]);
    // Only accepted calls ran: nothing of an escalated ticket reached the outbox.
    const sent = outboxLines(process.env.DEPUTY_OUTBOX);
    expect(sent.map((e) => [e.action, e.ticket_id])).toEqual(
      expect.arrayContaining([
        ["technical", "TCK-30001"],
        ["billing", "TCK-30002"],
        ["security", "TCK-30003"],
        ["close", "TCK-30004"],
        ["close", "TCK-30008"],
        ["accounts", "TCK-30011"],
      ]),
    );
    expect(sent).toHaveLength(6);

    // A person decides the escalations, checked against the tools now: a call that breaks a schema is refused.
    const tools = here("tools.mjs");
    const resolve = (item: number, ...args: string[]) =>
      cli([
        "resolve",
        m.runId,
        "route_tickets",
        "--item",
        String(item),
        ...args,
        "--store",
        store,
        "--tools",
        tools,
      ]);
    const route = (name: string, args: Record<string, unknown>) => JSON.stringify({ name, arguments: args });
    const refused = await resolve(
      5,
      "--call",
      route("route_to_accounts", { ticket_id: "TCK-30006", priority: "P0", request: "sso" }),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/priority/);
    const calls: [number, string][] = [
      [4, route("route_to_technical", { ticket_id: "TCK-30005", priority: "P3", component: "integrations" })],
      [5, route("route_to_accounts", { ticket_id: "TCK-30006", priority: "P1", request: "sso" })],
      [6, route("route_to_billing", { ticket_id: "TCK-30007", priority: "P3", category: "plan_change" })],
      [8, route("route_to_billing", { ticket_id: "TCK-30009", priority: "P2", category: "plan_change" })],
      [9, route("route_to_technical", { ticket_id: "TCK-30010", priority: "P3", component: "mobile_app" })],
    ];
    for (const [item, call] of calls) expect((await resolve(item, "--call", call)).code).toBe(0);
    const done = await cli(["resume", m.runId, "--store", store, "--tools", here("tools.mjs"), "--json"]);
    expect(done.code).toBe(0);
    expect((JSON.parse(done.stdout) as Manifest).nodes.route_tickets!.items).toMatchObject({
      total: 11,
      ok: 11,
      escalated: 0,
    });
    const after = outboxLines(process.env.DEPUTY_OUTBOX);
    expect(after).toHaveLength(11);
    expect(after.find((e) => e.ticket_id === "TCK-30006")).toMatchObject({
      action: "accounts",
      priority: "P1",
    });
  });
});
