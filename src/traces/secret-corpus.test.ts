import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "./redact.js";
import { registerSecret } from "../runtime/known-secrets.js";
import { neutralizeTerminal } from "./terminal-text.js";
import { alnum, secretShapes } from "../../test/secret-shapes.js";

const filler = fc.string({ unit: fc.constantFrom(..."abc xyz.,:;()\n\t-"), maxLength: 20 });
const redactor = new Redactor();

describe("the redactor on a corpus of secret shapes (generated)", () => {
  it("no secret survives in text, whatever surrounds it", () => {
    fc.assert(
      fc.property(secretShapes, filler, filler, ({ text, secret }, before, after) => {
        const out = redactor.redactString(`${before} ${text} ${after}`);
        expect(out).not.toContain(secret);
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 500 },
    );
  });

  it("no secret survives in data: values, nested values, and object keys", () => {
    fc.assert(
      fc.property(secretShapes, fc.constantFrom("value", "note", "k"), ({ text, secret }, field) => {
        const data = { [field]: text, nested: [{ deeper: text }], [text]: true };
        const out = JSON.stringify(redactor.redactValue(data));
        expect(out).not.toContain(secret);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves ordinary text alone: hashes, ids, token counts, prose", () => {
    const ordinary = [
      "commit 3f9a1c0b2d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a fixed it",
      "max_tokens: 256, prompt_tokens=12",
      "run 20261130-041503-3f9a1c (alert-triage): completed",
      "id 123e4567-e89b-12d3-a456-426614174000",
      "The author said: bearer of bad news",
      "see https://example.com/docs/page",
    ];
    for (const text of ordinary) expect(redactor.redactString(text)).toBe(text);
  });

  it("known secrets of any shape are redacted once registered", () => {
    fc.assert(
      fc.property(alnum(12, 24), (value) => {
        registerSecret(value);
        expect(redactor.redactString(`server said: bad key ${value}!`)).not.toContain(value);
      }),
      { numRuns: 50 },
    );
  });

  it("control characters and escape sequences are neutralised for the terminal", () => {
    const controls = fc.constantFrom(
      "\x1b[2J",
      "\x1b]0;pwned\x07",
      "\x1b[31m",
      "\r",
      "\x08",
      "\x9b1m",
      "\u202e",
      "\x00",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(controls, filler), { maxLength: 8 }), (parts) => {
        const out = neutralizeTerminal(parts.join(""));
        // eslint-disable-next-line no-control-regex
        expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
      }),
      { numRuns: 300 },
    );
    expect(neutralizeTerminal("line\n\ttab")).toBe("line\n\ttab");
  });
});
