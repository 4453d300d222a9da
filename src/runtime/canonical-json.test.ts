import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every depth, nested objects inside arrays included", () => {
    expect(canonicalJson({ b: 1, a: [3, { d: 1, c: { f: 0, e: 1 } }] })).toBe(
      '{"a":[3,{"c":{"e":1,"f":0},"d":1}],"b":1}',
    );
  });

  it("is stable through a parse, and parses back to the same data", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("sorts integer-like keys as text too (a plain object would put them first)", () => {
    expect(canonicalJson({ "": null, b: 1, 10: 1, 9: 2 })).toBe('{"":null,"10":1,"9":2,"b":1}');
  });

  it("follows JSON.stringify on what JSON has no text for", () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: Symbol("s"), d: 1 })).toBe('{"d":1}');
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson({ n: Number.NaN })).toBe('{"n":null}');
  });

  it("keeps a __proto__ key as data", () => {
    const value = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });
});
