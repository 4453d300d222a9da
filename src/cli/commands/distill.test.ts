import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadModelFile } from "../../distill/model-file.js";
import { EXIT } from "../exit-codes.js";
import { main } from "../main.js";
import { inputKey } from "./distill.js";

const example = (file: string) =>
  fileURLToPath(new URL(`../../../examples/alert-triage/${file}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "deputy-distill-"));
// In a folder that does not exist yet: distill creates it, as the quick start needs.
const model = join(dir, "models", "model.json");

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

// The calls the example's generator rules give for the alerts in alerts.json (ALR-1012 is gibberish: no call).
const RIGHT: Record<string, string> = {
  "ALR-1001": "escalate_to_pagerduty",
  "ALR-1002": "file_jira_ticket",
  "ALR-1003": "file_jira_ticket",
  "ALR-1004": "ignore_alert",
  "ALR-1005": "ignore_alert",
  "ALR-1006": "escalate_to_pagerduty",
  "ALR-1007": "file_jira_ticket",
  "ALR-1008": "ignore_alert",
  "ALR-1009": "escalate_to_pagerduty",
  "ALR-1010": "ignore_alert",
  "ALR-1011": "file_jira_ticket",
};

describe("deputy distill", () => {
  const outbox = process.env.DEPUTY_OUTBOX;
  afterAll(() => {
    if (outbox === undefined) delete process.env.DEPUTY_OUTBOX;
    else process.env.DEPUTY_OUTBOX = outbox;
  });

  it("trains from trace files, reports held-out accuracy, coverage and precision, and recommends a threshold", async () => {
    const r = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--holdout",
      example("data/heldout.jsonl"),
      "--out",
      model,
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/node "triage_items": 400 labelled example\(s\) \(400 person\)/);
    expect(r.stdout).toMatch(/trained on 400, tuned on 75 held out, measured on 75 held out/);
    expect(r.stdout).toMatch(/held-out exact-match accuracy: \d+\.\d%/);
    expect(r.stdout).toMatch(/← recommended/);
    const m = loadModelFile(model);
    expect(r.stdout).toContain(`recommended min_confidence: ${m.recommendedMinConfidence}`);
    expect(m.training).toMatchObject({
      examples: 400,
      heldOut: 75,
      tuning: 75,
      targetPrecision: 0.98,
      confidenceFloor: 0.8,
    });
    expect(m.recommendedMinConfidence).toBeGreaterThanOrEqual(0.8);
  });

  it("prints the measurements as JSON, with a random held-out share when no --holdout is given", async () => {
    const out = join(dir, "split.json");
    const r = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--out",
      out,
      "--json",
      "--target-precision",
      "0.95",
      "--confidence-floor",
      "0",
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      examples: 400,
      trainingExamples: 320,
      heldOutExamples: 80,
      targetPrecision: 0.95,
      confidenceFloor: 0,
    });
    expect(report.heldOutAccuracy).toBeGreaterThan(0.5);
    expect(report.heldOut.length).toBeGreaterThan(0);
  });

  it("trains on --resolved files and lets their rows choose the threshold, out of fold", async () => {
    const out = join(dir, "resolved.json");
    const r = await cli([
      "distill",
      example("data/train.jsonl"),
      "--resolved",
      example("data/escalations.jsonl"),
      "--holdout",
      example("data/heldout.jsonl"),
      "--node",
      "triage_items",
      "--out",
      out,
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.examples).toBe(490);
    expect(report.validationExamples).toBe(90);
    expect(loadModelFile(out).recommendedMinConfidence).toBe(report.recommendedMinConfidence);
    // A --resolved file that is not there: one line, exit 2, no model written.
    const missing = await cli([
      "distill",
      example("data/train.jsonl"),
      "--resolved",
      join(dir, "no-such.jsonl"),
      "--node",
      "triage_items",
      "--out",
      join(dir, "missing.json"),
    ]);
    expect(missing.code).toBe(EXIT.invalid);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "missing.json"))).toBe(false);
  });

  it("fails as invalid input when the traces hold no labelled calls of the node", async () => {
    const r = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "nope",
      "--out",
      join(dir, "x.json"),
    ]);
    expect(r.code).toBe(EXIT.invalid);
    expect(r.stderr).toMatch(/at least 2 labelled calls of node "nope"/);
    const bad = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--out",
      join(dir, "x.json"),
      "--target-precision",
      "2",
    ]);
    expect(bad.code).toBe(EXIT.invalid);
    const floor = await cli([
      "distill",
      example("data/train.jsonl"),
      "--node",
      "triage_items",
      "--out",
      join(dir, "y.json"),
      "--confidence-floor",
      "1.5",
    ]);
    expect(floor.code).toBe(EXIT.invalid);
    expect(floor.stderr).toMatch(/--confidence-floor/);
    expect(existsSync(join(dir, "y.json"))).toBe(false);
    // An empty value is refused, not read as 0 (Number("") is 0: a floor of 0 would gate nothing).
    for (const option of ["--confidence-floor", "--held-out-share", "--target-precision"]) {
      const empty = await cli([
        "distill",
        example("data/train.jsonl"),
        "--node",
        "triage_items",
        "--out",
        join(dir, "z.json"),
        option,
        "",
      ]);
      expect(empty.code, option).toBe(EXIT.invalid);
      expect(empty.stderr).toMatch(new RegExp(`${option}.*""`));
      expect(existsSync(join(dir, "z.json"))).toBe(false);
    }
  });

  it("runs the example's delegate node with the model: confident calls are right and run, the rest escalate", async () => {
    process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
    writeFileSync(process.env.DEPUTY_OUTBOX, "");
    const traces = join(dir, "traces.jsonl");
    const r = await cli([
      "run",
      example("plan.json"),
      "--tools",
      example("tools.mjs"),
      "--delegate",
      `distilled=${model}`,
      "--store",
      join(dir, "runs.db"),
      "--traces",
      traces,
      "--json",
    ]);
    expect(r.code).toBe(EXIT.escalated);
    const hops = readFileSync(traces, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(hops).toHaveLength(12);
    const accepted = hops.filter((h) => h.verdict === "accepted");
    expect(accepted.length).toBeGreaterThan(0);
    for (const h of accepted) expect(h.finalCall.name).toBe(RIGHT[h.facts.alert_id]);
    expect(hops.find((h) => h.facts.alert_id === "ALR-1012").verdict).toBe("low_confidence");
    const sent = readFileSync(process.env.DEPUTY_OUTBOX, "utf8").trim().split("\n");
    expect(sent).toHaveLength(accepted.length);
  });
});

describe("inputKey", () => {
  it("tells inputs apart by their nested facts, whatever the key order", () => {
    const a = { alert: { id: "a1", tags: { team: "db" } } };
    const b = { alert: { id: "a1", tags: { team: "web" } } };
    expect(inputKey("triage", a)).not.toBe(inputKey("triage", b));
    expect(inputKey("triage", { alert: { tags: { team: "db" }, id: "a1" } })).toBe(inputKey("triage", a));
  });
});
