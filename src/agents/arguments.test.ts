import { describe, expect, it } from "vitest";
import { checkArguments } from "./arguments.js";

const schema = {
  type: "object",
  properties: {
    question: { type: "string" },
    limit: { type: "integer", minimum: 1 },
    shipping: {
      type: "object",
      properties: { country: { type: "string" } },
      required: ["country"],
      additionalProperties: false,
    },
    filters: { type: "array", items: { type: "object", properties: { field: { type: "string" } } } },
  },
  required: ["question"],
  additionalProperties: false,
};

describe("checkArguments", () => {
  it("drops keys outside the contract at every level", () => {
    const r = checkArguments(schema, {
      question: "q",
      invented: 1,
      shipping: { country: "PT", zip: "x" },
      filters: [{ field: "a", op: "=" }],
    });
    expect(r).toEqual({
      ok: true,
      value: { question: "q", shipping: { country: "PT" }, filters: [{ field: "a" }] },
      dropped: ["/invented", "/shipping/zip", "/filters/0/op"],
    });
  });

  it("returns every issue for arguments that fail the contract", () => {
    const r = checkArguments(schema, { limit: 0, shipping: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues).toContain('(root): missing required key "question"');
      expect(r.issues).toContain('/shipping: missing required key "country"');
      expect(r.issues.some((i) => i.startsWith("/limit"))).toBe(true);
    }
  });

  it("treats missing arguments as {} and rejects non-objects", () => {
    expect(
      checkArguments({ type: "object", properties: {}, required: [], additionalProperties: false }, undefined)
        .ok,
    ).toBe(true);
    expect(checkArguments(schema, "q").ok).toBe(false);
  });
});
