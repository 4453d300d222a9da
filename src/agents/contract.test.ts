import { describe, expect, it } from "vitest";
import { z } from "zod";
import { delegation } from "./contract.js";

describe("delegation", () => {
  it("requires a non-empty description and says why", () => {
    expect(() => delegation("x", { description: " ", input: z.object({}) })).toThrowError(
      /only thing the calling model reads/,
    );
    expect(() => delegation("x", { input: z.object({}) } as never)).toThrowError(/non-empty `description`/);
  });

  it("gives zod input `required` and `additionalProperties: false`, with keywords passed through verbatim", () => {
    const c = delegation("search", {
      description: "Search the product catalogue",
      input: z.object({
        query: z.string().describe("What the customer is looking for"),
        limit: z.number().int().min(1).max(50).optional(),
        sort: z.enum(["relevance", "price", "rating"]).optional(),
        email: z.string().email().optional(),
        categories: z.array(z.string()).optional(),
        filters: z.array(z.object({ field: z.string(), value: z.string() })).optional(),
        shipping: z.object({ country: z.string().describe("ISO 3166-1 alpha-2") }).optional(),
      }),
    });
    const p = c.input as any;
    expect(p.required).toEqual(["query"]);
    expect(p.additionalProperties).toBe(false);
    expect(p.properties.query).toEqual({ type: "string", description: "What the customer is looking for" });
    expect(p.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50 });
    expect(p.properties.sort.enum).toEqual(["relevance", "price", "rating"]);
    expect(p.properties.email.format).toBe("email");
    expect(p.properties.filters.items.required).toEqual(["field", "value"]);
    expect(p.properties.shipping.properties.country.description).toBe("ISO 3166-1 alpha-2");
    expect(p.$schema).toBeUndefined();
  });

  it("passes a JSON Schema through verbatim, adding `required: []` and `additionalProperties: false`", () => {
    const input = {
      type: "object",
      properties: { channel: { type: "string", pattern: "^#", "x-custom": 1 } },
    };
    const c = delegation("notify", { description: "Send a notification", input });
    expect(c.input).toEqual({
      type: "object",
      properties: input.properties,
      required: [],
      additionalProperties: false,
    });
    expect(input).not.toHaveProperty("additionalProperties"); // the caller's object is not mutated
  });

  it("normalises returns, the default budget and onInvalid", () => {
    const c = delegation("classify", {
      description: "Classify",
      input: z.object({ body: z.string() }),
      returns: z.object({ category: z.enum(["billing", "bug"]) }),
      budget: { maxCalls: 2 },
    });
    expect(c.returns).toMatchObject({ type: "object", required: ["category"] });
    expect(c.budget).toEqual({ maxCalls: 2 });
    expect(c.onInvalid).toBe("error");
    expect(() =>
      delegation("c", { description: "d", input: z.object({}), budget: { maxCals: 1 } as never }),
    ).toThrowError(/maxCalls/);
    expect(() =>
      delegation("c", { description: "d", input: z.object({}), onInvalid: "ignore" as never }),
    ).toThrowError(/onInvalid/);
  });

  it("rejects names that cannot be tool names and inputs that are not objects", () => {
    expect(() => delegation("has space", { description: "d", input: z.object({}) })).toThrowError(
      /tool name/,
    );
    expect(() => delegation("x", { description: "d", input: z.string() })).toThrowError(
      /must describe an object/,
    );
  });
});
