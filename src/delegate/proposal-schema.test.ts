import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadAllBfclSamples, loadBfclWithAnswers } from "../../test/bfcl-fixtures.js";
import { toJsonSchema } from "../schema/json-schema.js";
import { compileSchema, validateValue } from "../schema/validator.js";
import { bfclGroundTruthCall, bfclToToolSpec } from "../eval/bfcl.js";
import { buildProposalSchema } from "./proposal-schema.js";
import type { ToolSpec } from "./protocol.js";

const spec = (name: string, parameters: Record<string, unknown>): ToolSpec => ({
  name,
  description: name,
  parameters,
});

describe("buildProposalSchema", () => {
  const tools = [
    spec("ignore_alert", {
      type: "object",
      properties: { reason: { type: "string" } },
      required: ["reason"],
    }),
    spec("page", {
      type: "object",
      properties: { team: { type: "string", enum: ["db", "web"] } },
      required: ["team"],
    }),
  ];
  const schema = buildProposalSchema(tools);

  it("has one branch per tool plus a decline branch", () => {
    expect((schema.oneOf as unknown[]).length).toBe(3);
    expect(validateValue(schema, { name: "page", arguments: { team: "db" } }).ok).toBe(true);
    expect(validateValue(schema, { name: null }).ok).toBe(true);
    expect(validateValue(schema, { name: null, arguments: {} }).ok).toBe(true);
  });

  it("rejects unknown tools, unknown keys, wrong arguments and a decline with arguments", () => {
    expect(validateValue(schema, { name: "rm_rf", arguments: {} }).ok).toBe(false);
    expect(validateValue(schema, { name: "page", arguments: { team: "db", extra: 1 } }).ok).toBe(false);
    expect(validateValue(schema, { name: "page", arguments: { team: "ops" } }).ok).toBe(false);
    expect(validateValue(schema, { name: "page" }).ok).toBe(false);
    expect(validateValue(schema, { name: null, arguments: { team: "db" } }).ok).toBe(false);
    expect(validateValue(schema, { name: "page", arguments: { team: "db" }, note: "x" }).ok).toBe(false);
  });

  it("is cached per tool set", () => {
    expect(buildProposalSchema([...tools])).toBe(schema);
    expect(buildProposalSchema([tools[0]!])).not.toBe(schema);
  });

  it("hoists and renames $defs and definitions of every tool without collisions", () => {
    const a = spec("a", {
      type: "object",
      properties: { p: { $ref: "#/$defs/Point" } },
      required: ["p"],
      $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    });
    const b = spec("b", {
      type: "object",
      properties: { p: { $ref: "#/definitions/Point" }, q: { $ref: "#/definitions/Point/properties/y" } },
      required: ["p"],
      definitions: { Point: { type: "object", properties: { y: { type: "string" } }, required: ["y"] } },
    });
    // A tool whose name plus def name collide with another tool's hoisted name.
    const c = spec("a__Point", {
      type: "object",
      properties: { v: { $ref: "#/$defs/x" } },
      $defs: { x: { type: "boolean" } },
    });
    const d = spec("d", { type: "object" }); // a tool without definitions adds none
    const s = buildProposalSchema([a, b, c]);
    const defs = s.$defs as Record<string, unknown>;
    expect(Object.keys(defs).sort()).toEqual(["a__Point", "a__Point__x", "b__Point"]);
    expect(JSON.stringify(s)).not.toContain('"definitions"');
    compileSchema(s);
    expect(validateValue(s, { name: "a", arguments: { p: { x: 1 } } }).ok).toBe(true);
    expect(validateValue(s, { name: "a", arguments: { p: { y: "1" } } }).ok).toBe(false);
    expect(validateValue(s, { name: "b", arguments: { p: { y: "1" }, q: "z" } }).ok).toBe(true);
    expect(validateValue(s, { name: "b", arguments: { p: { x: 1 } } }).ok).toBe(false);
    expect(validateValue(s, { name: "a__Point", arguments: { v: true } }).ok).toBe(true);
    const twice = buildProposalSchema([
      a,
      d,
      spec("e", { ...(a.parameters as object), $defs: { Point: { type: "null" } } }),
    ]);
    expect(Object.keys(twice.$defs as object).sort()).toEqual(["a__Point", "e__Point"]);
  });

  it("suffixes a hoisted name that is already taken", () => {
    const x = spec("t", {
      type: "object",
      properties: { a: { $ref: "#/$defs/u__v" } },
      $defs: { u__v: { type: "string" } },
    });
    const y = spec("t__u", {
      type: "object",
      properties: { a: { $ref: "#/$defs/v" } },
      $defs: { v: { type: "integer" } },
    });
    const s = buildProposalSchema([x, y]);
    expect(Object.keys(s.$defs as object).sort()).toEqual(["t__u__v", "t__u__v_2"]);
    expect(validateValue(s, { name: "t", arguments: { a: "s" } }).ok).toBe(true);
    expect(validateValue(s, { name: "t__u", arguments: { a: 3 } }).ok).toBe(true);
    expect(validateValue(s, { name: "t__u", arguments: { a: "s" } }).ok).toBe(false);
  });

  it("supports recursive zod schemas (refs to the tool's own root)", () => {
    const Node: z.ZodType<{ label: string; children?: unknown[] }> = z.object({
      label: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const s = buildProposalSchema([spec("tree", toJsonSchema(Node))]);
    compileSchema(s);
    expect(validateValue(s, { name: "tree", arguments: { label: "a", children: [{ label: "b" }] } }).ok).toBe(
      true,
    );
    expect(validateValue(s, { name: "tree", arguments: { label: "a", children: [{ label: 1 }] } }).ok).toBe(
      false,
    );
  });

  it("leaves a property named like a keyword alone", () => {
    const s = buildProposalSchema([
      spec("k", {
        type: "object",
        properties: { definitions: { type: "string" }, $ref: { type: "string" } },
      }),
    ]);
    expect(validateValue(s, { name: "k", arguments: { definitions: "x", $ref: "#/nope" } }).ok).toBe(true);
  });
});

describe("BFCL tool schemas", () => {
  const all = loadAllBfclSamples();

  it("every tool schema of every sample file compiles into a proposal schema", () => {
    expect(all.length).toBe(400);
    let tools = 0;
    for (const { sample } of all) {
      const specs = sample.function.map(bfclToToolSpec);
      tools += specs.length;
      const s = buildProposalSchema(specs);
      expect(() => compileSchema(s), sample.id).not.toThrow();
      expect(validateValue(s, { name: null }).ok).toBe(true);
    }
    expect(tools).toBeGreaterThan(400);
    expect(JSON.stringify(all.map(({ sample }) => sample.function.map(bfclToToolSpec)))).not.toMatch(
      /"type":"(dict|float|tuple|any)"/,
    );
  });

  it("every ground-truth answer validates against its proposal schema", () => {
    const failures: string[] = [];
    const samples = loadBfclWithAnswers();
    expect(samples.length).toBe(300);
    for (const { sample, answer } of samples) {
      const s = buildProposalSchema(sample.function.map(bfclToToolSpec));
      const r = validateValue(s, bfclGroundTruthCall(answer, sample.function.map(bfclToToolSpec)));
      if (!r.ok) failures.push(`${sample.id}: ${r.issues.slice(0, 2).join("; ")}`);
    }
    expect(failures).toEqual([]);
  });
});
