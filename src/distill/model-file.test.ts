import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DistilledModelError } from "../errors/index.js";
import { alertTriageModel } from "./alert-triage.fixture.js";
import { loadModelFile, saveModelFile, validateModel, type DistilledModelData } from "./model-file.js";

const model = () => structuredClone(alertTriageModel().model) as DistilledModelData & Record<string, unknown>;

function problems(value: unknown): string[] {
  try {
    validateModel(value, "m.json");
  } catch (error) {
    expect(DistilledModelError.isInstance(error)).toBe(true);
    expect((error as DistilledModelError).code).toBe("DISTILLED_MODEL_INVALID");
    return (error as DistilledModelError).problems;
  }
  return [];
}

describe("distilled model files", () => {
  it("round-trip through JSON and record what they learned", () => {
    const dir = mkdtempSync(join(tmpdir(), "model-"));
    const path = join(dir, "m.json");
    saveModelFile(path, alertTriageModel().model);
    const loaded = loadModelFile(path);
    expect(loaded).toEqual(JSON.parse(JSON.stringify(alertTriageModel().model)));
    expect(loaded).toMatchObject({ format: "deputy-distilled", version: 1, node: "triage_items" });
    expect(loaded.tools.map((t) => t.name)).toEqual([
      "escalate_to_pagerduty",
      "file_jira_ticket",
      "ignore_alert",
    ]);
    expect(loaded.arguments.escalate_to_pagerduty).toMatchObject({
      alert_id: { kind: "span" },
      urgency: { kind: "class", classifier: { classes: ['"high"', '"low"'] } },
      summary: { kind: "span" },
    });
    expect(loaded.arguments.file_jira_ticket!.project).toMatchObject({
      kind: "class",
      classifier: { classes: ['"OPS"'] },
    });
    expect(loaded.arguments.ignore_alert!.reason!.kind).toBe("class");
    expect(loaded.factKeys).toEqual(["alert_id", "environment", "severity"]);
  });

  it("refuses another format or version with a clear cause", () => {
    expect(problems({ ...model(), format: "onnx" })[0]).toMatch(/format: expected "deputy-distilled"/);
    expect(problems({ ...model(), version: 2 })[0]).toMatch(
      /this deputy reads version 1, the file is version 2; retrain/,
    );
    expect(problems(null)[0]).toMatch(/expected object/);
  });

  it("lists every malformed part", () => {
    const m = model();
    const [feature] = Object.keys(m.toolHead.weights);
    m.toolHead.weights[feature!] = [1];
    (m.calibration as { bias: unknown }).bias = "x";
    (m as Record<string, unknown>).extra = true;
    const found = problems(m);
    expect(
      found.some((p) => p.includes(`toolHead.weights.${feature}`) && p.includes("expected 3 weights, got 1")),
    ).toBe(true);
    expect(found.some((p) => p.startsWith("calibration.bias"))).toBe(true);
    expect(found.some((p) => p.includes("extra"))).toBe(true);
  });

  it("refuses heads of tools it does not record", () => {
    const m = model();
    m.tools = m.tools.filter((t) => t.name !== "ignore_alert");
    const found = problems(m);
    expect(found).toContain('toolHead.classes: "ignore_alert" is not one of the model\'s tools');
    expect(found).toContain("arguments.ignore_alert: not one of the model's tools");
  });

  it("reports unreadable and non-JSON files", () => {
    const dir = mkdtempSync(join(tmpdir(), "model-"));
    expect(() => loadModelFile(join(dir, "missing.json"))).toThrow(/cannot be read/);
    writeFileSync(join(dir, "bad.json"), "{");
    expect(() => loadModelFile(join(dir, "bad.json"))).toThrow(/is not JSON/);
  });
});
