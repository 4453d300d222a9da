/** `deputy learn --store`: the escalations people resolved in a run store are decisions of the team, beside files. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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

describe("deputy learn --store", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-learn-store-"));
  const outbox = process.env.DEPUTY_OUTBOX;
  afterAll(() => {
    if (outbox === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = outbox;
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "learns from people's resolutions in the store and from decision files",
    { timeout: 300_000 },
    async () => {
      const store = join(dir, "runs.db");
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
      const call = {
        name: "file_jira_ticket",
        arguments: { alert_id: "ALR-1003", project: "OPS", priority: "P2", title: "Login latency" },
      };
      const resolve = (...args: string[]) =>
        cli(["resolve", runId, "triage_items", ...args, "--store", store]);
      expect((await resolve("--item", "2", "--call", JSON.stringify(call))).code).toBe(0);
      expect((await resolve("--item", "11", "--skip")).code).toBe(0);

      const models = join(dir, "models");
      const learn = (...args: string[]) =>
        cli([
          "learn",
          "--node",
          "triage_items",
          "--model",
          join(models, "triage.model.json"),
          "--store",
          store,
          "--curve-points",
          "1",
          "--json",
          ...args,
        ]);
      const both = await learn("--decisions", example("data/escalations.jsonl"), "--dry-run");
      expect(both.stderr).toBe("");
      expect(both.code).toBe(0);
      // the 90 decisions of the file and the store's two (a call and a skip)
      expect(JSON.parse(both.stdout).counts.decisions).toBe(92);

      // Two decisions alone train nothing worth promoting: the champion (none) stays, and it says why.
      const alone = await learn();
      expect(alone.code).toBe(0);
      const report = JSON.parse(alone.stdout) as {
        counts: { decisions: number };
        promoted: boolean;
        reason: string;
      };
      expect(report).toMatchObject({ counts: { decisions: 2 }, promoted: false });
      expect(report.reason.length).toBeGreaterThan(0);
      expect(readdirSync(models)).toEqual(["triage.model.learn.jsonl"]);
    },
  );
});
