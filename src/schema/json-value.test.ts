import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonValue, checkJsonValueByWalk, jsonDepth } from "./json-value.js";

/** A value `depth` objects deep: `{ a: { a: … 1 } }`. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const bad: [string, unknown, RegExp][] = [
  ["NaN", NaN, /NaN is not a JSON number/],
  ["Infinity", -Infinity, /-Infinity is not a JSON number/],
  ["a BigInt", 1n, /BigInt/],
  ["a function", () => 1, /function/],
  ["a Symbol", Symbol("s"), /Symbol/],
  ["a Map", new Map(), /Map is not JSON/],
  ["a Set", new Set([1]), /Set is not JSON/],
  ["an object with Symbol keys", { [Symbol("k")]: 1 }, /Symbol keys/],
];

describe("checkJsonValue", () => {
  it("accepts every JSON value, and what JSON drops or converts (undefined in objects, toJSON values)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(checkJsonValue(v)).toBeUndefined();
      }),
    );
    expect(checkJsonValue({ a: undefined, at: new Date(0), n: null })).toBeUndefined();
    expect(checkJsonValue(undefined)).toBeUndefined();
  });

  it.each(bad)("refuses %s at the root and names the path where it is nested", (_, value, reason) => {
    expect(checkJsonValue(value)).toEqual({ path: "$", reason: expect.stringMatching(reason) });
    expect(checkJsonValue({ a: [1, { "b-c": value }] })).toEqual({
      path: "$.a[1].b-c",
      reason: expect.stringMatching(reason),
    });
  });

  it("finds a bad value wherever it is put into any JSON value, with its path", () => {
    const container = fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 5 }),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), {
        minKeys: 1,
        maxKeys: 5,
      }),
    );
    fc.assert(
      fc.property(container, fc.nat(), fc.constantFrom(...bad), (c, pick, [, value, reason]) => {
        const keys = Object.keys(c);
        const key = keys[pick % keys.length]!;
        // (defineProperty: a generated key may be "__proto__", which an assignment would not add)
        Object.defineProperty(c, key, { value, enumerable: true, writable: true, configurable: true });
        const path = Array.isArray(c) ? `$[${key}]` : `$.${key}`;
        expect(checkJsonValue(c)).toEqual({ path, reason: expect.stringMatching(reason) });
      }),
    );
  });

  it("reports the first problem in document order", () => {
    expect(checkJsonValue([1, NaN, () => 1])?.path).toBe("$[1]");
    expect(checkJsonValue({ a: { b: 1 }, c: 1n, d: NaN })?.path).toBe("$.c");
  });

  it("refuses a cycle but accepts the same object twice side by side", () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { back: loop };
    expect(checkJsonValue(loop)).toEqual({ path: "$.self.back", reason: "a circular reference is not JSON" });
    const shared = { x: 1 };
    expect(checkJsonValue({ a: shared, b: [shared, shared] })).toBeUndefined();
  });

  it("refuses nesting past the limit without overflowing the stack", () => {
    expect(checkJsonValue(nested(5), 5)).toBeUndefined();
    expect(checkJsonValue(nested(6), 5)).toEqual({
      path: "$.a.a.a.a.a",
      reason: "nested deeper than 5 levels",
    });
    expect(checkJsonValue(nested(100_000))?.reason).toBe("nested deeper than 200 levels");
    expect(jsonDepth(nested(100_000), 300)).toBe(301);
  });

  it("gives the walker's answer for any value: the quick pass never accepts what the walker refuses", () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
      maxDepth: 4,
    });
    const extra = fc.constantFrom<unknown>(
      NaN,
      -Infinity,
      1n,
      () => 1,
      Symbol("s"),
      { [Symbol("k")]: 1 },
      new (class Point {
        x = 1;
      })(),
    );
    fc.assert(
      fc.property(fc.oneof(anything, extra), fc.nat(), fc.constantFrom(3, 5, 200), (v, seed, maxDepth) => {
        expect(checkJsonValue(v, maxDepth)).toEqual(checkJsonValueByWalk(v, maxDepth));
        // Put it somewhere in a list of records, as a tool's result would carry it.
        const list = Array.from({ length: 3 }, (_, i) => ({ i, v: i === seed % 3 ? v : i }));
        expect(checkJsonValue(list, maxDepth)).toEqual(checkJsonValueByWalk(list, maxDepth));
      }),
      { numRuns: 500 },
    );
  });

  it("answers at once for cycles that branch, however the quick pass meets them", () => {
    const knot: Record<string, unknown> = {};
    for (let k = 0; k < 8; k++) knot[`k${k}`] = knot; // walked naively, 8^200 paths
    expect(checkJsonValue(knot)).toEqual({ path: "$.k0", reason: "a circular reference is not JSON" });
    const wide = Array.from({ length: 200_000 }, () => ({ a: 1 }));
    expect(checkJsonValue(wide)).toBeUndefined(); // past the quick pass's visit limit: the walker decides
    (wide[150_000] as Record<string, unknown>).a = NaN;
    expect(checkJsonValue(wide)).toEqual({ path: "$[150000].a", reason: "NaN is not a JSON number" });
  });
});
