import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findNamedPlan } from "./named-plans.js";
import { checkPlanInputs, inputsFromFlags } from "./plan-inputs.js";

const declared = {
  type: "object",
  properties: { queue: { type: "string" }, limit: { type: "integer", minimum: 1 } },
  required: ["queue"],
};

describe("inputsFromFlags", () => {
  it("parses a value as JSON when it parses, else keeps the string", () => {
    expect(inputsFromFlags(["queue=ops", "limit=5", "tags=[1,2]", "note=a=b"], undefined)).toEqual({
      queue: "ops",
      limit: 5,
      tags: [1, 2],
      note: "a=b",
    });
  });

  it("takes --inputs as one JSON object, and refuses both forms, non-objects, bad pairs and repeated keys", () => {
    expect(inputsFromFlags(undefined, '{"queue":"ops"}')).toEqual({ queue: "ops" });
    expect(() => inputsFromFlags(["a=1"], "{}")).toThrow(/--inputs/);
    expect(() => inputsFromFlags(undefined, "[1]")).toThrow(/JSON object/);
    expect(() => inputsFromFlags(undefined, "{")).toThrow(/JSON object/);
    expect(() => inputsFromFlags(["novalue"], undefined)).toThrow(/key=value/);
    expect(() => inputsFromFlags(["a=1", "a=2"], undefined)).toThrow(/twice/);
  });

  it("keeps __proto__ as a plain key", () => {
    const inputs = inputsFromFlags(["__proto__=1"], undefined);
    expect(Object.getPrototypeOf(inputs)).toBe(Object.prototype);
    expect(Object.keys(inputs)).toEqual(["__proto__"]);
  });
});

describe("checkPlanInputs", () => {
  it("accepts values that fit", () => {
    expect(checkPlanInputs(declared, { queue: "ops", limit: 2 })).toEqual([]);
  });

  it("lists a missing required input and an unknown one, one line each", () => {
    expect(checkPlanInputs(declared, { limit: 2, colour: "red" })).toEqual([
      'missing input "queue" (string)',
      'unknown input "colour" (the plan takes: queue, limit)',
    ]);
  });

  it("checks values against the schema", () => {
    expect(checkPlanInputs(declared, { queue: "ops", limit: "many" })).toEqual([
      "input limit: must be integer",
    ]);
    expect(checkPlanInputs(declared, { queue: 3, limit: 0 })).toHaveLength(2);
  });

  it("refuses any input for a plan that declares none", () => {
    expect(checkPlanInputs(undefined, {})).toEqual([]);
    expect(checkPlanInputs(undefined, { a: 1 })).toEqual(['unknown input "a": the plan declares no inputs']);
  });
});

describe("findNamedPlan", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-plans-"));
  writeFileSync(join(dir, "one.json"), JSON.stringify({ name: "triage", nodes: [] }));
  writeFileSync(join(dir, "digest.json"), JSON.stringify({ name: "daily", nodes: [] }));
  writeFileSync(join(dir, "broken.json"), "{ not json");

  it("finds a plan by its name, else by its file name", () => {
    expect(findNamedPlan(dir, "triage").path).toBe(join(dir, "one.json"));
    expect(findNamedPlan(dir, "digest").path).toBe(join(dir, "digest.json"));
  });

  it("names the plans there when none is called that, and refuses a missing folder and a name used twice", () => {
    expect(() => findNamedPlan(dir, "nope")).toThrow(
      'No plan named "nope" in ' + dir + " (plans there: daily, triage)",
    );
    expect(() => findNamedPlan(join(dir, "missing"), "triage")).toThrow(/Plans folder not found/);
    const twice = mkdtempSync(join(tmpdir(), "deputy-plans-"));
    writeFileSync(join(twice, "a.json"), JSON.stringify({ name: "x" }));
    writeFileSync(join(twice, "b.json"), JSON.stringify({ name: "x" }));
    expect(() => findNamedPlan(twice, "x")).toThrow(/More than one plan is named "x"/);
  });
});
