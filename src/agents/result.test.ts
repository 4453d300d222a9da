import { describe, expect, it } from "vitest";
import { checkResult, jsonCandidates } from "./result.js";

const schema = {
  type: "object",
  properties: {
    category: { type: "string", enum: ["billing", "bug", "account", "other"] },
    urgency: { type: "string", enum: ["low", "normal", "high"] },
    tags: {
      type: "array",
      items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
  },
  required: ["category", "urgency"],
};

describe("checkResult", () => {
  it("parses plain JSON", () => {
    expect(checkResult(schema, '{"category":"billing","urgency":"high"}', "classify")).toEqual({
      ok: true,
      data: { category: "billing", urgency: "high" },
    });
  });

  it("finds JSON wrapped in prose or a code fence", () => {
    expect(
      checkResult(schema, 'Sure! Here it is: {"category":"bug","urgency":"low"} Hope that helps.', "c"),
    ).toMatchObject({ ok: true, data: { category: "bug" } });
    expect(
      checkResult(schema, 'Result:\n```json\n{"category":"other","urgency":"normal"}\n```', "c"),
    ).toMatchObject({ ok: true });
  });

  it("reports missing top-level keys", () => {
    const r = checkResult(schema, '{"category":"billing"}', "classify");
    expect(r).toMatchObject({
      ok: false,
      error: "invalid_result",
      missing: ["urgency"],
      content: '{"category":"billing"}',
    });
  });

  it("validates beyond the top level: enums, types and nested required keys", () => {
    const r = checkResult(schema, '{"category":"refund","urgency":"high","tags":[{}]}', "classify");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.missing).toEqual([]);
      expect(r.issues.some((i) => i.startsWith("/category"))).toBe(true);
      expect(r.issues).toContain('/tags/0: missing required key "name"');
      expect(r.message).toMatch(/does not match its declared output/);
    }
  });

  it("says when there is no JSON at all", () => {
    const r = checkResult(schema, "It is a billing issue.", "classify");
    expect(r).toMatchObject({
      ok: false,
      missing: ["category", "urgency"],
      issues: ["(root): the answer contains no JSON value"],
    });
  });
});

describe("jsonCandidates", () => {
  it("skips braces inside strings and returns outer values only", () => {
    expect(jsonCandidates('x {"a":"}{","b":{"c":[1]}} y [2]')).toEqual([{ a: "}{", b: { c: [1] } }, [2]]);
  });
});
