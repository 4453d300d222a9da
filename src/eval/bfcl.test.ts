import { describe, expect, it } from "vitest";
import { bfclGroundTruthCall, bfclQuestion, bfclSchemaToJsonSchema, bfclToToolSpec } from "./bfcl.js";

describe("bfclSchemaToJsonSchema", () => {
  it("maps BFCL's types as BFCL does, recursively", () => {
    const out = bfclSchemaToJsonSchema({
      type: "dict",
      properties: {
        a: { type: "float" },
        b: { type: "tuple", items: { type: "float" } },
        c: { type: "any" },
        d: { type: "dict", properties: { e: { type: "integer" } } },
        f: { type: "array", items: { type: "dict", properties: { g: { type: "boolean" } } } },
        format: { type: "string", format: "date" },
      },
      required: ["a"],
    });
    expect(out).toEqual({
      type: "object",
      properties: {
        a: { type: "number" },
        b: { type: "array", items: { type: "number" } },
        c: { type: "string" },
        d: { type: "object", properties: { e: { type: "integer" } } },
        f: { type: "array", items: { type: "object", properties: { g: { type: "boolean" } } } },
        format: { type: "string", format: "date" },
      },
      required: ["a"],
    });
  });

  it("drops `optional`, keeps defaults that fit the type and drops those that do not", () => {
    const out = bfclSchemaToJsonSchema({
      type: "dict",
      properties: {
        unit: { type: "string", default: "celsius", optional: true },
        auth: { type: "tuple", items: { type: "string" }, default: null },
        n: { type: "integer", default: 2.5 },
        x: { type: "float", default: 0 },
      },
      required: ["ghost"],
    });
    expect(out.properties).toEqual({
      unit: { type: "string", default: "celsius" },
      auth: { type: "array", items: { type: "string" } },
      n: { type: "integer" },
      x: { type: "number", default: 0 },
    });
    expect(out.required).toEqual([]);
  });
});

describe("bfclToToolSpec / bfclGroundTruthCall / bfclQuestion", () => {
  it("builds a spec and the first allowed call, omitting '' optionals", () => {
    const spec = bfclToToolSpec({
      name: "math.hypot",
      description: "norm",
      parameters: { type: "dict", properties: { x: { type: "integer" } }, required: ["x"] },
    });
    expect(spec).toEqual({
      name: "math.hypot",
      description: "norm",
      parameters: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
    });
    expect(
      bfclGroundTruthCall({
        id: "s",
        ground_truth: [{ "math.hypot": { x: [4], y: [5, 6], z: ["", 0], u: ["cm", ""] } }],
      }),
    ).toEqual({ name: "math.hypot", arguments: { x: 4, y: 5, u: "cm" } });
    const nested = bfclToToolSpec({
      name: "q",
      parameters: {
        type: "dict",
        properties: {
          area: { type: "dict", properties: { w: { type: "integer" } } },
          conds: { type: "array", items: { type: "dict", properties: { f: { type: "string" } } } },
          tags: { type: "array", items: { type: "string" } },
        },
      },
    });
    expect(
      bfclGroundTruthCall(
        {
          id: "n",
          ground_truth: [
            {
              q: {
                area: [{ w: [20, 21] }],
                conds: [[{ f: ["age"] }, { f: ["job", "j"] }]],
                tags: [["a", "b"]],
              },
            },
          ],
        },
        [nested],
      ),
    ).toEqual({
      name: "q",
      arguments: { area: { w: 20 }, conds: [{ f: "age" }, { f: "job" }], tags: ["a", "b"] },
    });
    expect(bfclQuestion({ id: "s", question: [[{ role: "user", content: "hi" }]], function: [] })).toBe("hi");
  });
});
