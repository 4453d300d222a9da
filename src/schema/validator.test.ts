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
