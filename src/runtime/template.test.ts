import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTemplate, compileValue, renderString, renderValue, type TemplateScope } from "./template.js";

const scope: TemplateScope = {
  artifacts: {
    alerts: {
      list: [
        { id: 1, tags: ["a"] },
        { id: 2, tags: [] },
      ],
    },
    count: 2,
    name: "disk",
  },
  alias: "alert",
  item: { id: 7, host: { name: "db-1" } },
  index: 3,
  inputs: { queue: "billing" },
};

/** Every string value inside `v` (not the keys: templates render values only). */
function stringsIn(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(stringsIn);
  if (typeof v === "object" && v !== null) return Object.values(v).flatMap(stringsIn);
  return [];
}

describe("templates", () => {
  it("a value that is exactly one placeholder yields the structured value", () => {
    expect(renderString("{artifacts.alerts}", scope)).toBe(scope.artifacts.alerts);
    expect(renderString("{artifacts.alerts.list[1]}", scope)).toEqual({ id: 2, tags: [] });
    expect(renderString("{alert.host}", scope)).toEqual({ name: "db-1" });
    expect(renderString("{index}", scope)).toBe(3);
    expect(renderString("{inputs.queue}", scope)).toBe("billing");
  });

  it("interpolates inside text: objects as JSON, numbers as text, the alias honoured", () => {
    expect(renderString("host {alert.host.name} #{index} of {artifacts.count}", scope)).toBe(
      "host db-1 #3 of 2",
    );
    expect(renderString("tags: {artifacts.alerts.list[0].tags}", scope)).toBe('tags: ["a"]');
    expect(renderString("r_{index}_{alert.id}", scope)).toBe("r_3_7");
  });

  it("keeps placeholders whose root the scope does not know (no alias, another alias, no index)", () => {
    const plain: TemplateScope = { artifacts: {} };
    expect(renderString("{item.id}", plain)).toBe("{item.id}");
    expect(renderString("{item.id}", scope)).toBe("{item.id}"); // the alias is "alert", not "item"
    expect(renderString("n={index}", plain)).toBe("n={index}");
  });

  it("fails clearly on a missing artifact or path, and never reads inherited properties", () => {
    expect(() => renderString("{artifacts.nope}", scope)).toThrow(
      expect.objectContaining({ code: "TEMPLATE_MISSING" }),
    );
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(() => renderString(`{artifacts.${key}}`, scope)).toThrow(
        expect.objectContaining({ code: "TEMPLATE_MISSING" }),
      );
      expect(() => renderString(`{alert.${key}}`, scope)).toThrow(
        expect.objectContaining({ code: "SELECT_MISSING" }),
      );
    }
    expect(() => renderString("{artifacts.alerts.list[5]}", scope)).toThrow(/no element \[5\]/);
  });

  it("renders values deeply into fresh copies and never mutates the template", () => {
    const args = { a: "{index}", nested: { list: ["{alert.id}", "x", 5, null, true] } };
    const frozen = structuredClone(args);
    const out = renderValue(args, scope) as typeof args;
    expect(out).toEqual({ a: 3, nested: { list: [7, "x", 5, null, true] } });
    expect(args).toEqual(frozen);
    expect(out.nested).not.toBe(args.nested);
    expect(renderValue(args, { ...scope, index: 4 })).toMatchObject({ a: 4 });
  });

  it("renders a key named __proto__ as data, never as the copy's prototype", () => {
    const args = JSON.parse('{"__proto__": {"polluted": "{index}"}, "a": "{alert.id}"}') as object;
    const out = renderValue(args, scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: 3 });
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(out.a).toBe(7);
  });

  it("compiles once per template and per value object", () => {
    expect(compileTemplate("x {index}")).toBe(compileTemplate("x {index}"));
    const args = { i: "{alert.id}" };
    expect(compileValue(args)).toBe(compileValue(args));
  });

  it("leaves any text without a placeholder unchanged, and renders any JSON without braces to an equal copy", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("{")),
        (text) => {
          expect(renderString(text, scope)).toBe(text);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => !stringsIn(v).some((t) => t.includes("{"))),
        (value) => {
          const out = renderValue(value, scope);
          expect(out).toEqual(value);
        },
      ),
    );
  });

  it("never throws anything but a DeputyError on a hostile template (a plan file is user input)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        try {
          renderString(text, scope);
        } catch (error) {
          expect((error as { code?: unknown }).code).toMatch(/^(TEMPLATE|SELECT)_/);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("gives equal JSON values the same renderer, and keeps apart what JSON cannot show", () => {
    const a = compileValue({ id: "{alert.id}", n: [1, "{index}"] });
    expect(compileValue({ id: "{alert.id}", n: [1, "{index}"] })).toBe(a);
    expect(compileValue("{alert.id}")).toBe(compileValue("{alert.id}"));
    expect(a(scope)).toEqual({ id: 7, n: [1, 3] });
    // {a: undefined} is not {} (JSON would drop the key): each keeps its own renderer and output.
    const withUndefined = compileValue({ a: undefined });
    expect(withUndefined).not.toBe(compileValue({}));
    expect(Object.keys(withUndefined(scope) as object)).toEqual(["a"]);
    // A "__proto__" key stays an own data key through the shared renderer.
    const proto = JSON.parse('{"__proto__": "{alert.id}"}') as object;
    compileValue(JSON.parse('{"__proto__": "{alert.id}"}'));
    const out = compileValue(proto)(scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe(7);
  });
  it("renders `{alias.key}` and `text{index}text` through compileValue exactly as renderString does", () => {
    const outcome = (f: () => unknown) => {
      try {
        return { value: f() };
      } catch (error) {
        return { code: (error as { code?: unknown }).code, message: (error as Error).message };
      }
    };
    const root = fc.constantFrom("item", "alert", "index", "inputs", "artifacts");
    const key = fc.constantFrom("id", "i", "constructor", "__proto__", "toString", "0");
    const text = fc.string({ maxLength: 4 }).filter((t) => !/[{}]/.test(t));
    const template = fc.oneof(
      fc.tuple(root, key).map(([r, k]) => `{${r}.${k}}`),
      fc.tuple(text, text).map(([a, b]) => `${a}{index}${b}`),
    );
    const item = fc.oneof(
      fc.anything(),
      fc.constant(JSON.parse('{"__proto__": 1, "id": 2}') as unknown),
      fc.constant(Object.assign(Object.create(null) as object, { i: 3 })),
    );
    const someScope = fc.record(
      {
        alias: fc.constantFrom("item", "alert", "index", "inputs"),
        item,
        index: fc.nat(),
        inputs: fc.constant({ id: 1 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(template, someScope, (t, s) => {
        const full: TemplateScope = { artifacts: { id: 5 }, ...s };
        expect(outcome(() => compileValue(t)(full))).toEqual(outcome(() => renderString(t, full)));
      }),
      { numRuns: 2000 },
    );
  });
});
