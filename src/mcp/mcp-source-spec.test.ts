import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { isMcpSpec, parseMcpSpec, redactMcpSpec, splitCommandLine } from "./mcp-source-spec.js";
import type { McpStdioServer } from "./mcp-tools.js";

describe("--tools mcp:… values", () => {
  it("start a command with its arguments, split as a shell splits words", () => {
    expect(parseMcpSpec("mcp:stdio:node server.js --root /tmp/data")).toEqual({
      command: "node",
      args: ["server.js", "--root", "/tmp/data"],
    });
    expect(
      (parseMcpSpec(`mcp:stdio:node "my server.js" 'a b' c\\ d "q\\"uote" $HOME`) as McpStdioServer).args,
    ).toEqual(["my server.js", "a b", "c d", 'q"uote', "$HOME"]);
  });

  it("reach a Streamable HTTP server at the URL after mcp+", () => {
    expect(parseMcpSpec("mcp+http://127.0.0.1:3001/mcp")).toEqual({ url: "http://127.0.0.1:3001/mcp" });
    expect(parseMcpSpec("mcp+https://tools.example.com/mcp")).toEqual({
      url: "https://tools.example.com/mcp",
    });
  });

  it("say trusted only with +trusted right after mcp", () => {
    expect(parseMcpSpec("mcp+trusted:stdio:srv")).toEqual({ command: "srv", args: [], trusted: true });
    expect(parseMcpSpec("mcp+trusted+https://h/mcp")).toEqual({ url: "https://h/mcp", trusted: true });
    expect(parseMcpSpec("mcp:stdio:srv --trusted")).toEqual({ command: "srv", args: ["--trusted"] });
  });

  it("pass the environment and directory given for a stdio server", () => {
    expect(parseMcpSpec("mcp:stdio:srv", { env: { A: "1" }, cwd: "/w" })).toEqual({
      command: "srv",
      args: [],
      env: { A: "1" },
      cwd: "/w",
    });
  });

  it("refuse what names no server, in one line that shows the forms", () => {
    for (const bad of ["mcp:stdio:", "mcp:stdio:   ", "mcp:stdio:node 'open", "mcp:ws://h", "mcp+ftp://h"]) {
      let error: unknown;
      try {
        parseMcpSpec(bad);
      } catch (e) {
        error = e;
      }
      expect(McpSourceError.isInstance(error), bad).toBe(true);
      expect((error as McpSourceError).code).toBe("MCP_SOURCE_INVALID");
      expect((error as Error).message).toMatch(/mcp:stdio:COMMAND ARGS…, mcp\+http:\/\/HOST\/PATH/);
      expect((error as Error).message).not.toMatch(/\n/);
    }
  });

  it("are told apart from tools modules", () => {
    expect(isMcpSpec("mcp:stdio:x")).toBe(true);
    expect(isMcpSpec("mcp+https://h")).toBe(true);
    expect(isMcpSpec("mcp+trusted:stdio:x")).toBe(true);
    expect(isMcpSpec("./tools.mjs")).toBe(false);
    expect(isMcpSpec("mcp-tools.mjs")).toBe(false);
  });

  it("keep no URL password where a run records them", () => {
    expect(redactMcpSpec("mcp+https://me:s3cret@h/mcp")).toBe("mcp+https://me:***@h/mcp");
    expect(redactMcpSpec("mcp:stdio:node a:b@c")).toBe("mcp:stdio:node a:b@c");
  });
});

/** Quotes a word as a careful user would: single quotes, each `'` written `'\''`. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

describe("splitCommandLine", () => {
  it("gives back any words a user quoted", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), (words) => {
        expect(splitCommandLine(words.map(quote).join(" "))).toEqual(words);
      }),
    );
  });

  it("splits unquoted words on any whitespace, and never throws on text without quotes or backslashes", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/['"\\]/.test(s)),
        (text) => {
          expect(splitCommandLine(text)).toEqual(text.split(/\s+/).filter(Boolean));
        },
      ),
    );
  });
});
