import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applySelectPath, parseSelectPath } from "./select-path.js";

const data = {
  alerts: [
    { id: 1, tags: ["a", "b"], owner: { name: "ann" } },
    { id: 2, tags: [], owner: { name: "bob" } },
  ],
  nested: [[1, 2], [3]],
};
const select = (path: string, value: unknown = data) => applySelectPath(value, parseSelectPath(path), "src");

describe("select paths", () => {
  it("parses keys, [] and [n], joined by dots", () => {
    expect(parseSelectPath("alerts[].owner.name")).toEqual([
      { key: "alerts" },
      { flatten: true },
      { key: "owner" },
      { key: "name" },
    ]);
    expect(parseSelectPath("nested[0][1]")).toEqual([{ key: "nested" }, { index: 0 }, { index: 1 }]);
  });

  it("rejects what is not a path, naming the bad part", () => {
    for (const bad of ["", "a..b", "a[x]", "a b", "a.[0]", "a[0", "$.a"]) {
      expect(() => parseSelectPath(bad), bad).toThrow(expect.objectContaining({ code: "SELECT_INVALID" }));
    }
    expect(() => parseSelectPath("a.b c")).toThrow(/"b c"/);
  });

  it("selects, indexes and flattens; after [] later steps apply to every element", () => {
    expect(select("alerts[0].id")).toBe(1);
    expect(select("alerts[].id")).toEqual([1, 2]);
    expect(select("alerts[].owner.name")).toEqual(["ann", "bob"]);
    expect(select("alerts[].tags[]")).toEqual(["a", "b"]);
    expect(select("nested[]")).toEqual([[1, 2], [3]]);
    expect(select("nested[][]")).toEqual([1, 2, 3]);
  });

  it("fails on missing keys, elements and non-lists, naming where", () => {
    expect(() => select("alerts[].nope")).toThrow('src.alerts[] has no key "nope".');
    expect(() => select("alerts[9]")).toThrow(/no element \[9\]/);
    expect(() => select("alerts[0].id[]")).toThrow(/is not a list/);
    expect(() => select("alerts.id")).toThrow(expect.objectContaining({ code: "SELECT_MISSING" }));
  });

  it("never reads inherited properties (model and tool outputs are untrusted)", () => {
    for (const key of ["constructor", "toString", "__proto__", "valueOf"]) {
      expect(() => select(key, { a: 1 }), key).toThrow(expect.objectContaining({ code: "SELECT_MISSING" }));
    }
    expect(select("__proto__", JSON.parse('{"__proto__": 5}'))).toBe(5);
  });

  it("finds every key a value really has, and throws only DeputyErrors on any path and value", () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }), (obj) => {
        for (const k of Object.keys(obj)) expect(select(k, obj)).toEqual(obj[k]);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 4 }),
        fc.jsonValue({ maxDepth: 3 }),
        (keys, value) => {
          try {
            select(keys.join("."), value);
          } catch (error) {
            expect((error as { code?: unknown }).code).toBe("SELECT_MISSING");
          }
        },
      ),
    );
  });
});
