/**
 * `deputy distill --store`: a person's decisions on escalations in a run store become training data — before and
 * after the run is resumed — and bad input fails with exit 2, writing nothing.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../exit-codes.js";
import { main } from "../main.js";

const example = (file: string) =>
  fileURLToPath(new URL(`../../../examples/alert-triage/${file}`, import.meta.url));

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy distill --store", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-distill-store-"));
  const store = join(dir, "runs.db");
  const outbox = process.env.DEPUTY_OUTBOX;
  afterAll(() => {
    if (outbox === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = outbox;
  });
  const distill = (out: string) =>
    cli([
      "distill",
      example("data/train.jsonl"),
      "--store",
      store,
      "--node",
      "triage_items",
      "--out",
      join(dir, out),
      "--json",
    ]);

  // Trains twice on the example's 400 traces: minutes on a loaded 2-core machine.
  it(
    "learns the calls people resolved escalations with, and keeps them once the run resumes",
    { timeout: 600_000 },
    async () => {
      process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
      writeFileSync(process.env.DEPUTY_OUTBOX, "");
      const run = await cli([
        "run",
        example("plan.json"),
        "--tools",
        example("tools.mjs"),
        "--delegate",
        `scripted=${example("proposals.jsonl")}`,
        "--store",
        store,
        "--json",
      ]);
      expect(run.code).toBe(EXIT.escalated);
      const { runId } = JSON.parse(run.stdout) as { runId: string };
      const resolve = (...args: string[]) =>
        cli(["resolve", runId, "triage_items", ...args, "--store", store]);
      const login = {
        name: "file_jira_ticket",
        arguments: {
          alert_id: "ALR-1003",
          project: "OPS",
          priority: "P2",
          title: "Login latency p95 above 4s since the 14:05 deploy",
        },
      };
      expect((await resolve("--item", "2", "--call", JSON.stringify(login))).code).toBe(0);
      expect((await resolve("--item", "10", "--value", '{"action": "none"}')).code).toBe(0);
      expect((await resolve("--item", "11", "--skip")).code).toBe(0);

      const before = await distill("before.json");
      expect(before.stderr).toBe("");
      expect(before.code).toBe(0);
      const report = JSON.parse(before.stdout) as {
        examples: number;
        store: { traces: number; runs: number; unresolved: number; values: number };
      };
      // Item 2's call and item 11's skip (a decline) are labels; item 10's value is not; 5 and 8 are still open.
      expect(report.store).toEqual({ traces: 2, runs: 1, unresolved: 2, values: 1 });
      expect(report.examples).toBe(402);

      const { resolvedEscalationTraces } = await import("../../distill/resolved-escalations.js");
      const { SqliteRunStore } = await import("../../store/sqlite-run-store.js");
      const opened = new SqliteRunStore(store);
      const { traces } = await resolvedEscalationTraces(opened, "triage_items");
      await opened.close();
      const ticket = traces.find((t) => t.item === 2)!;
      // The input is the one the escalation recorded, as the node rendered it.
      expect(ticket.instruction).toMatch(
        /^Analyze this alert and select the most appropriate action: Login latency/,
      );
      expect(ticket.facts).toMatchObject({ alert_id: "ALR-1003", environment: "production" });
      expect(ticket).toMatchObject({ source: "person", verdict: "accepted", finalCall: login });
      expect(traces.find((t) => t.item === 11)).toMatchObject({ verdict: "declined", source: "person" });

      const resumed = await cli([
        "resume",
        runId,
        "--store",
        store,
        "--tools",
        example("tools.mjs"),
        "--json",
      ]);
      expect(resumed.code).toBe(EXIT.escalated); // items 5 and 8 are still waiting
      const after = JSON.parse((await distill("after.json")).stdout) as { store: { traces: number } };
      expect(after.store.traces).toBe(2);
    },
  );

  it("fails with exit 2 and writes nothing on a missing store or a bad encoder spec", async () => {
    const out = join(dir, "bad.json");
    const missing = await cli([
      "distill",
      "--store",
      join(dir, "nope.db"),
      "--node",
      "triage_items",
      "--out",
      out,
    ]);
    expect(missing.code).toBe(EXIT.invalid);
    expect(missing.stderr).toMatch(/--store/);
    const spec = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--encoder",
      "onnx=/x",
      "--out",
      out,
    ]);
    expect(spec.code).toBe(EXIT.invalid);
    expect(spec.stderr).toMatch(/--encoder.*gguf=PATH/);
    const file = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--encoder",
      `gguf=${join(dir, "missing.gguf")}`,
      "--out",
      out,
    ]);
    expect(file.code).toBe(EXIT.invalid);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(dir, "nope.db"))).toBe(false);
  });
});
