import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutralizeTerminal } from "./terminal-text.js";

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("neutralizeTerminal", () => {
  it("shows escape sequences, controls and bidi marks as visible escapes", () => {
    expect(neutralizeTerminal("\x1b[31mred\x1b[0m")).toBe("\\x1b[31mred\\x1b[0m");
    expect(neutralizeTerminal("\x1b]0;title\x07 \x9b2J")).toBe("\\x1b]0;title\\x07 \\x9b2J");
    expect(neutralizeTerminal("a\x00b\x7f")).toBe("a\\x00b\\x7f");
    expect(neutralizeTerminal("safe\u202eexe.txt \u200f")).toBe("safe\\u202eexe.txt \\u200f");
    expect(neutralizeTerminal("line\n\ttab € 😀")).toBe("line\n\ttab € 😀");
  });

  it("leaves no hidden character in any string, and changes nothing else", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const out = neutralizeTerminal(text);
        expect(HIDDEN.test(out)).toBe(false);
        if (!HIDDEN.test(text)) expect(out).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });
});
