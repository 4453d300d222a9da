import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGuard } from "./cel-guard.js";

describe("compileGuard", () => {
  it("runs matches() in linear time: backtracking patterns on hostile strings return", () => {
    // With JavaScript's RegExp each of these takes longer than the universe on a 60k-char string.
    const hostile = "a".repeat(60_000) + "!";
    for (const pattern of ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(a*)*b", "^(\\\\w+\\\\s?)*$"]) {
      const guard = compileGuard(`ctx.s.matches("${pattern}")`);
      expect(guard({ s: hostile })).toBe(false);
    }
  });

  it("agrees with JavaScript's RegExp on patterns both accept (generated)", () => {
    const atom = fc.constantFrom("a", "b", ".", "[ab]", "\\\\d", "(a|b)", "x");
    const quant = fc.constantFrom("", "*", "+", "?", "{1,2}");
    const pattern = fc
      .tuple(fc.boolean(), fc.array(fc.tuple(atom, quant), { minLength: 1, maxLength: 5 }), fc.boolean())
      .map(
        ([start, parts, end]) =>
          `${start ? "^" : ""}${parts.map(([a, q]) => a + q).join("")}${end ? "$" : ""}`,
      );
    const text = fc.string({ unit: fc.constantFrom("a", "b", "x", "1", " "), maxLength: 12 });
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        const guard = compileGuard(`ctx.s.matches("${p}")`);
        const js = new RegExp(p.replaceAll("\\\\", "\\")).test(s);
        expect(guard({ s })).toBe(js);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects at compile time what would fail at run time: unknown functions, patterns RE2 refuses", () => {
    expect(() => compileGuard("nosuch(ctx.x)")).toThrow(/CEL|nosuch/);
    try {
      compileGuard('ctx.s.matches("(?<=x)a")');
      expect.unreachable();
    } catch (error) {
      expect((error as { code: string }).code).toBe("CEL_INVALID");
      expect((error as Error).message).toMatch(/matches\(\).*RE2/);
    }
  });

  it("a pattern that arrives in the data and RE2 refuses is an evaluation error, not a hang or a crash", () => {
    const guard = compileGuard("ctx.s.matches(ctx.p)");
    expect(() => guard({ s: "aaa", p: "(a)\\1" })).toThrow(expect.objectContaining({ code: "CEL_EVAL" }));
    expect(guard({ s: "aaa", p: "a{3}" })).toBe(true);
  });
});
