/**
 * The learned level changes a call to the team's convention, as a user runs it: the real CLI (bin/deputy.js over
 * dist/, built by `npm test`) on the alert-triage example's files in a temporary folder.
 *
 * The example's generator files every real-but-not-urgent alert to Jira project "OPS"; this team files Android
 * app crashes to "MOBILE". `deputy distill` on the generated alerts makes the champion, which files new Android
 * crash alerts to OPS, confidently; `deputy learn` on the team's decisions promotes a challenger; the same plan
 * run with the learned file files new Android crash alerts — none of them among the decisions — to MOBILE, accepted
 * by the gate, while an outage is still paged as before. The n-gram model (no encoder, no weights), fixed seeds.
 */
import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../exit-codes.js";

const BIN = fileURLToPath(new URL("../../../bin/deputy.js", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../../../examples/alert-triage/", import.meta.url));
const exec = promisify(execFile);
const NODE = "triage_items";
const PREFIX = "Analyze this alert and select the most appropriate action: ";
const isAndroidCrash = (instruction: string) => instruction.startsWith(`${PREFIX}Android app `);

interface Trace {
  item: number;
  instruction: string;
  facts: Record<string, string>;
  verdict: string;
  finalCall?: { name: string; arguments: Record<string, unknown> } | null;
}
const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const writeJsonl = (path: string, lines: readonly unknown[]) =>
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

/** `node bin/deputy.js ARGS`: exit code and output, never throwing on a non-zero exit. */
async function deputy(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 16 << 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

// New alerts, none among the decisions: three Android app crashes (high, medium, low severity) and an outage.
const NEW_ALERTS = [
  { id: "ALR-9001", severity: "high", summary: "Android app crash rate up from 2.4% to 6.8% on version 8.3" },
  { id: "ALR-9002", severity: "medium", summary: "Android app ANR rate doubled on version 5.12" },
  { id: "ALR-9003", severity: "low", summary: "Android app crash-free sessions fell to 58% on version 6.4" },
  {
    id: "ALR-9004",
    severity: "critical",
    summary: "Checkout API error rate at 41% for 12 minutes; payments failing in eu-west-1",
  },
];
const TICKET_PRIORITY: Record<string, string> = { high: "P2", medium: "P3", low: "P4" };

const root = mkdtempSync(join(tmpdir(), "deputy-convention-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("deputy learn: the learned level makes the team's call", () => {
  it(
    "files new Android crash alerts to the team's MOBILE project where the distilled champion filed them to OPS",
    { timeout: 300_000 },
    async () => {
      expect(
        existsSync(new URL("../../../dist/cli/main.js", import.meta.url)),
        "run `npm run build` first",
      ).toBe(true);
      // The example, with new alerts, in a folder of its own (tools.mjs reads alerts.json beside itself).
      const ex = join(root, "example");
      mkdirSync(ex);
      for (const f of ["plan.json", "tools.mjs"]) copyFileSync(join(EXAMPLE, f), join(ex, f));
      writeFileSync(
        join(ex, "alerts.json"),
        JSON.stringify({ source: "monitoring", alerts: NEW_ALERTS.map((a) => ({ service: "x", ...a })) }),
      );

      // The team's decisions: 1,000 alerts from the example's generator (its own seed, not the shipped sets'),
      // every Android app crash and the first 120 others, decided as the generator labels them except that the
      // team files Android app crashes to MOBILE.
      const gen = join(root, "generated");
      mkdirSync(gen);
      await exec(process.execPath, [
        join(EXAMPLE, "data/generate.mjs"),
        ...["--train", "1000", "--heldout", "0", "--styled", "0", "--seed", "11", "--out", gen],
      ]);
      const generated = readJsonl<Trace & Record<string, unknown>>(join(gen, "train.jsonl"));
      const chosen = [
        ...generated.filter((t) => isAndroidCrash(t.instruction)),
        ...generated.filter((t) => !isAndroidCrash(t.instruction)).slice(0, 120),
      ];
      const decisions = chosen.map((t, i) => {
        const id = `ALR-${70_000 + i}`;
        const call = t.finalCall!;
        return {
          ...t,
          runId: "team",
          item: i,
          facts: { ...t.facts, alert_id: id },
          finalCall: {
            name: call.name,
            arguments: {
              ...call.arguments,
              alert_id: id,
              ...(isAndroidCrash(t.instruction) ? { project: "MOBILE" } : {}),
            },
          },
          backend: "person",
          source: "person",
        };
      });
      const mobile = decisions.filter((d) => isAndroidCrash(d.instruction));
      expect(mobile.length).toBeGreaterThanOrEqual(30);
      expect(mobile.every((d) => d.finalCall.name === "file_jira_ticket")).toBe(true);
      const decided = new Set(decisions.map((d) => d.instruction));
      for (const a of NEW_ALERTS) expect(decided.has(PREFIX + a.summary)).toBe(false);
      const people = join(root, "people.jsonl");
      writeJsonl(people, decisions);

      // The champion: deputy distill on the example's 400 generated alerts (every ticket to OPS).
      const model = join(root, "models", "triage.model.json");
      mkdirSync(join(root, "models"));
      const distill = await deputy([
        "distill",
        join(EXAMPLE, "data/train.jsonl"),
        ...["--node", NODE, "--out", model, "--target-precision", "0.97", "--seed", "1"],
      ]);
      expect(distill.stderr).toBe("");
      expect(distill.code).toBe(0);

      /** Runs the plan on the new alerts with a model; the run's delegate traces by item, and the outbox. */
      const runWith = async (file: string, tag: string) => {
        const traces = join(root, `${tag}.traces.jsonl`);
        const outbox = join(root, `${tag}.outbox.jsonl`);
        const run = await deputy(
          [
            "run",
            join(ex, "plan.json"),
            ...["--tools", join(ex, "tools.mjs"), "--delegate", `distilled=${file}`, "--traces", traces],
          ],
          { DEPUTY_OUTBOX: outbox },
        );
        expect(run.stderr).toBe("");
        const byItem = new Map(readJsonl<Trace>(traces).map((t) => [t.item, t]));
        const sent = existsSync(outbox) ? readJsonl<Record<string, unknown>>(outbox) : [];
        return { code: run.code, byItem, sent };
      };

      const before = await runWith(model, "champion");
      expect([0, EXIT.escalated]).toContain(before.code);
      for (const i of [0, 1, 2]) {
        // the generic call, or an escalation: never the team's MOBILE
        const t = before.byItem.get(i)!;
        if (t.verdict === "accepted") expect(t.finalCall!.arguments.project).toBe("OPS");
        else expect(t.finalCall ?? null).toBeNull();
      }
      expect(before.sent.some((s) => s.project === "MOBILE")).toBe(false);

      // deputy learn on the team's decisions: the challenger is promoted, the champion kept beside it.
      const learn = await deputy([
        "learn",
        ...["--node", NODE, "--model", model, "--decisions", people, "--seed", "1"],
      ]);
      expect(learn.stderr).toBe("");
      expect(learn.code).toBe(0);
      expect(learn.stdout).toMatch(/^promote: the challenger decides /m);
      expect(learn.stdout).toContain(
        `wrote ${model} (the previous kept as ${join(root, "models", "triage.model.prev.json")})`,
      );
      expect(existsSync(join(root, "models", "triage.model.prev.json"))).toBe(true);

      const after = await runWith(model, "learned");
      expect(after.code).toBe(0);
      for (const [i, alert] of NEW_ALERTS.slice(0, 3).entries()) {
        const t = after.byItem.get(i)!;
        expect({ item: i, verdict: t.verdict, call: t.finalCall }).toEqual({
          item: i,
          verdict: "accepted",
          call: {
            name: "file_jira_ticket",
            arguments: {
              alert_id: alert.id,
              project: "MOBILE",
              priority: TICKET_PRIORITY[alert.severity],
              title: alert.summary,
            },
          },
        });
      }
      // the tool ran with the team's arguments…
      expect(
        after.sent
          .filter((s) => s.project === "MOBILE")
          .map((s) => String(s.alert_id))
          .sort(),
      ).toEqual(["ALR-9001", "ALR-9002", "ALR-9003"]);
      // …and what the team decides as the generator does is decided as before: the outage is paged.
      expect(after.byItem.get(3)).toMatchObject({
        verdict: "accepted",
        finalCall: { name: "escalate_to_pagerduty", arguments: { alert_id: "ALR-9004", urgency: "high" } },
      });
    },
  );
});
