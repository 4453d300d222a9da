import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { show, visible } from "./text.js";

// Control characters (terminal escapes), C1 controls and bidirectional overrides; newline and tab are kept.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("visible", () => {
  it("shows terminal escapes and bidi overrides instead of passing them on", () => {
    expect(visible("\u001b[31mred\u001b[0m")).toBe("␛[31mred␛[0m");
    expect(visible("a\u0007b\u007f")).toBe("a␇b␡");
    expect(visible("safe\u202eexe.txt")).toBe("safe\\u{202e}exe.txt");
    expect(visible("line\n\ttab <b>x</b>")).toBe("line\n\ttab <b>x</b>");
  });

  it("leaves no hidden character in any string, and changes nothing else", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const out = visible(text);
        expect(HIDDEN.test(out)).toBe(false);
        if (!HIDDEN.test(text)) expect(out).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it("shows any JSON value as text with nothing hidden", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(HIDDEN.test(show(value))).toBe(false);
      }),
    );
  });
});
