import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { checkMcpHeaderOrigins, mcpHeadersOf } from "./mcp-headers.js";

const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/).filter((n) => !/^(accept|host)$/i.test(n));
/** A secret as a user might paste it: long enough that a message quoting it would be caught. */
const secret = fc.stringMatching(/^[0-9a-f]{16,40}$/);

describe("mcpHeadersOf", () => {
  it("reads any `Name: value` line as that header, the value trimmed", () => {
    fc.assert(
      fc.property(name, secret, fc.constantFrom("", " ", "  "), (n, value, pad) => {
        expect(mcpHeadersOf({ mcpHeader: [`${n}:${pad}${value}${pad}`] })).toEqual({ [n]: value });
      }),
    );
  });

  it("quotes no part of a value in any refusal, whatever the line around it", () => {
    const line = fc.tuple(fc.string({ maxLength: 12 }), secret, fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 3 }), (lines) => {
        try {
          mcpHeadersOf({ mcpHeader: lines.map(([before, value, after]) => `${before}${value}${after}`) });
        } catch (error) {
          expect(InvalidOptionError.isInstance(error)).toBe(true);
          for (const [before, value, after] of lines) {
            // Text before the line's first colon is the header's name, which a refusal may name (not a value).
            const colon = `${before}${value}${after}`.indexOf(":");
            if (colon >= 0 && before.length + value.length <= colon) continue;
            expect((error as Error).message).not.toContain(value);
          }
        }
      }),
    );
  });

  it("refuses a header the client sets itself, one given twice, a bare token and an unreadable file", () => {
    expect(() => mcpHeadersOf({ mcpHeader: ["Mcp-Session-Id: x"] })).toThrow(/not Mcp-Session-Id/);
    expect(() => mcpHeadersOf({ mcpHeader: ["A: 1", "a: 2"] })).toThrow(/a is given twice/);
    expect(() => mcpHeadersOf({ mcpHeader: ["sk0123456789abcdef"] })).toThrow(/got "\(hidden\)"/);
    expect(() => mcpHeadersOf({ mcpHeadersFile: "/nonexistent/headers" })).toThrow(/--mcp-headers-file/);
    expect(mcpHeadersOf({})).toBeUndefined();
  });

  it("reads a file of lines, skipping blank lines and comments, beside the flags", () => {
    const file = join(mkdtempSync(join(tmpdir(), "deputy-headers-")), "h.txt");
    writeFileSync(file, "# the tenant's key\r\nAuthorization: Bearer abc\n\n  X-Tenant: acme\n");
    expect(mcpHeadersOf({ mcpHeader: ["X-Trace: 1"], mcpHeadersFile: file })).toEqual({
      "X-Trace": "1",
      Authorization: "Bearer abc",
      "X-Tenant": "acme",
    });
  });
});

describe("checkMcpHeaderOrigins", () => {
  it("lets headers go to servers of one origin only, and only where there is one", () => {
    expect(() =>
      checkMcpHeaderOrigins(["https://mcp.example.com/a", "https://mcp.example.com/b"]),
    ).not.toThrow();
    expect(() => checkMcpHeaderOrigins(["https://a.example.com/mcp", "https://b.example.com/mcp"])).toThrow(
      /one origin only/,
    );
    expect(() => checkMcpHeaderOrigins([])).toThrow(/mcp\+http/);
  });
});
