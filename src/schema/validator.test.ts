import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchema } from "./json-schema.js";
import { compileSchema, validateValue } from "./validator.js";

const person = {
  type: "object",
  properties: {
    name: { type: "string" },
    age: { type: "integer", minimum: 0 },
    email: { type: "string", format: "email" },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

describe("schema validation", () => {
  it("accepts what fits and lists every issue with its path, unknown and missing keys by name", () => {
    expect(validateValue(person, { name: "ann", age: 3, email: "ann@example.com" })).toEqual({ ok: true });
    const result = validateValue(person, { age: -1, email: "nope", extra: 1 });
    expect(result.ok).toBe(false);
    const issues = (result as { issues: string[] }).issues;
    expect(issues).toContain('(root): missing required key "name"');
    expect(issues).toContain('(root): unknown key "extra"');
    expect(issues.some((i) => i.startsWith("/age:"))).toBe(true);
    expect(issues.some((i) => i.startsWith("/email:"))).toBe(true);
  });

  it("compiles once per schema object", () => {
    expect(compileSchema(person)).toBe(compileSchema(person));
  });

  it("validates zod schemas through their JSON Schema like hand-written ones", () => {
    const schema = toJsonSchema(z.object({ q: z.string(), n: z.number().int().optional() }));
    expect(validateValue(schema, { q: "x", n: 2 }).ok).toBe(true);
    expect(validateValue(schema, { q: 1 }).ok).toBe(false);
    expect(validateValue(schema, { q: "x", n: 1.5 }).ok).toBe(false);
  });

  it("never throws on any value (arguments come from models), and agrees with a direct check", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = validateValue(person, value);
        const fits =
          typeof value === "object" &&
          value !== null &&
          !Array.isArray(value) &&
          typeof (value as { name?: unknown }).name === "string" &&
          Object.keys(value).every((k) => k === "name");
        if (fits) expect(result.ok).toBe(true);
        if (!result.ok) expect(result.issues.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("schemas that declare $schema", () => {
  const tuple = z.object({
    name: z.string(),
    pair: z.tuple([z.string(), z.number()]),
    tags: z.array(z.string()).optional(),
  });

  it.each(["draft-07", "draft-2020-12"] as const)(
    "accepts zod's toJSONSchema output for %s and validates by it",
    (target) => {
      const schema = z.toJSONSchema(tuple, { target }) as Record<string, unknown>;
      expect(schema.$schema).toMatch(/json-schema\.org/);
      expect(validateValue(schema, { name: "a", pair: ["x", 1], tags: ["t"] })).toEqual({ ok: true });
      const bad = validateValue(schema, { name: 1, pair: ["x", "y"], extra: true });
      expect(bad.ok).toBe(false);
      const issues = (bad as { issues: string[] }).issues;
      expect(issues).toContain("/name: must be string");
      expect(issues).toContain("/pair/1: must be number");
      expect(issues).toContain('(root): unknown key "extra"');
    },
  );

  it("reads a draft-07 schema as draft-07: tuples, additionalItems, definitions, dependencies", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
        owner: { $ref: "#/definitions/person" },
        card: { type: "string" },
      },
      dependencies: { card: ["billing"] },
      definitions: { person: { type: "object", required: ["id"] } },
    };
    expect(validateValue(schema, { point: [1, 2], owner: { id: 1 } })).toEqual({ ok: true });
    expect(validateValue(schema, { point: [1, 2, 3] }).ok).toBe(false);
    expect(validateValue(schema, { point: ["a", 2] }).ok).toBe(false);
    expect(validateValue(schema, { owner: {} }).ok).toBe(false);
    expect(validateValue(schema, { card: "4242" }).ok).toBe(false);
    expect(validateValue(schema, { card: "4242", billing: "x" })).toEqual({ ok: true });
  });

  it("accepts the 2020-12 URI with or without '#', and names the drafts it accepts for another one", () => {
    for (const $schema of [
      "https://json-schema.org/draft/2020-12/schema",
      "https://json-schema.org/draft/2020-12/schema#",
      "http://json-schema.org/draft-07/schema",
    ])
      expect(validateValue({ $schema, type: "integer" }, 3)).toEqual({ ok: true });
    expect(() =>
      compileSchema({ $schema: "http://json-schema.org/draft-04/schema#", type: "integer" }),
    ).toThrow(/draft\/2020-12.*draft-07/);
  });

  it("leaves a tool's schema in one dialect, so what embeds it (a proposal schema) compiles too", () => {
    const parameters = toJsonSchema(z.toJSONSchema(tuple, { target: "draft-07" }) as Record<string, unknown>);
    expect(parameters.$schema).toBeUndefined();
    const proposal = { oneOf: [{ type: "object", properties: { arguments: parameters } }] };
    expect(validateValue(proposal, { arguments: { name: "a", pair: ["x", 1] } })).toEqual({ ok: true });
  });
});
