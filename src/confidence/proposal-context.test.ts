import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listedValues, groundedCall, proposalContext, verbatimShare } from "./proposal-context.js";

const tool = (name: string) => ({ name, description: name, parameters: { type: "object", properties: {} } });

describe("proposal context", () => {
  it("counts the argument values the question spells out, at any depth", () => {
    const question = "Area of a triangle with base 10 and height 5, in Square Meters";
    expect(verbatimShare(question, { base: 10, height: 5, unit: "square meters" })).toBe(1);
    expect(verbatimShare(question, { base: 10, height: 7 })).toBe(0.5);
    expect(verbatimShare(question, { sides: [10, 5, 12], unit: { name: "cm" } })).toBe(0.5);
    // Nothing to copy: a decline or a call without arguments made nothing up.
    expect(verbatimShare(question, {})).toBe(1);
    expect(verbatimShare(question, undefined)).toBe(1);
    // Booleans and nulls are not values the question can spell out; they do not count either way.
    expect(verbatimShare(question, { base: 10, exact: true, note: null })).toBe(1);
  });

  it("is a share in [0, 1] for any arguments and question, and 1 when every value is copied in", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), json), (question, args) => {
        const share = verbatimShare(question, args);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
        expect(verbatimShare(`${question} ${JSON.stringify(args)} ${collect(args).join(" ")}`, args)).toBe(1);
      }),
    );
  });

  it("grounds a call in the question's values and, given the tool's schema, in the values its enums list", () => {
    const schema = {
      type: "object",
      properties: {
        unit: { type: "string", enum: ["Celsius", "fahrenheit"] },
        level: { anyOf: [{ enum: [1, 2, 3] }] },
        city: { type: "string" },
      },
    };
    const question = "How warm is it in Riga?";
    expect(groundedCall(question, { city: "Riga" })).toBe(true);
    expect(groundedCall(question, { city: "Riga", unit: "celsius" })).toBe(false);
    expect(groundedCall(question, { city: "Riga", unit: "celsius", level: 2 }, schema)).toBe(true);
    expect(groundedCall(question, { city: "Oslo", unit: "celsius" }, schema)).toBe(false);
    // No value at all grounds nothing, whatever the schema lists.
    expect(groundedCall(question, { unit: true }, schema)).toBe(false);
  });

  it("grounds a value the tool documents as its default, and a copied phrase with stray white space", () => {
    // live_simple_48-21-0: the model fills the optional ranges with the defaults the schema states.
    const schema = {
      type: "object",
      properties: {
        style: { type: "string" },
        abv_max: { type: "number", default: 12.5 },
        note: { type: "string", default: "no  preference " },
      },
    };
    const question = "Could you recommend a lager from Sierra Nevada?";
    expect(groundedCall(question, { style: "lager", abv_max: 12.5 })).toBe(false);
    expect(groundedCall(question, { style: "lager", abv_max: 12.5 }, schema)).toBe(true);
    expect(groundedCall(question, { style: "lager", abv_max: 13 }, schema)).toBe(false);
    expect(groundedCall(question, { style: "lager", note: "No preference" }, schema)).toBe(true);
    // live_simple_123-79-0: the question copied with a trailing space; white space inside is squeezed too.
    expect(groundedCall("analyze 'How does it look?' please", { q: "How does  it look? " })).toBe(true);
    expect(groundedCall("analyze 'How does it look?' please", { q: "How does it feel?" })).toBe(false);
  });

  it("reads any schema a tool or an MCP server sends without throwing: cycles, depth, odd enums (generated)", () => {
    const cyclic: Record<string, unknown> = { enum: ["a"] };
    cyclic.items = cyclic;
    expect([...listedValues(cyclic)]).toEqual(["a"]);
    let deep: unknown = { enum: ["bottom"] };
    for (let i = 0; i < 10_000; i++) deep = { items: deep };
    expect(listedValues(deep).size).toBe(0); // past the depth bound: read as listing nothing
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }),
        fc.string(),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
        (schema, question, args) => {
          const listed = listedValues(schema);
          for (const v of listed) expect(typeof v).toBe("string");
          // The schema only adds grounds: a call grounded without it stays grounded with it.
          if (groundedCall(question, args)) expect(groundedCall(question, args, schema)).toBe(true);
        },
      ),
    );
  });

  it("reads the number of candidate tools and the facts with the instruction", () => {
    const request = {
      instruction: "Page the on-call",
      facts: { team: "payments" },
      tools: [tool("a"), tool("b")],
    };
    expect(proposalContext(request, { team: "payments" })).toEqual({ tools: 2, verbatimShare: 1 });
    expect(proposalContext({ ...request, facts: {} }, { team: "payments" })).toEqual({
      tools: 2,
      verbatimShare: 0,
    });
  });
});

function collect(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (typeof v === "number") return [JSON.stringify(v)];
  if (Array.isArray(v)) return v.flatMap(collect);
  if (v !== null && typeof v === "object") return Object.values(v).flatMap(collect);
  return [];
}
