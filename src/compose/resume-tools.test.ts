import { describe, expect, it } from "vitest";
import { RunError } from "../errors/run-error.js";
import { toolsForResume } from "./resume-tools.js";

const meta = {
  version: 1 as const,
  tools: "/srv/app/tools.mjs",
  toolSources: ["/srv/app/tools.mjs", "mcp:stdio:node srv.mjs \u001b]0;owned\u0007", "mcp+https://h/mcp"],
  cwd: "/srv/app",
};

describe("toolsForResume: a store is data", () => {
  it("takes the host's --tools and never the record's", () => {
    expect(toolsForResume("r", meta, { tools: "./mine.mjs" })).toEqual({
      recorded: false,
      sources: ["./mine.mjs"],
    });
  });

  it("refuses a run that had tools, resumed with none, with the flags to pass", () => {
    expect(() => toolsForResume("r", meta, {})).toThrow(/pass the same --tools again \(or --recorded-tools/);
    expect(() => toolsForResume("r", meta, {})).toThrow(
      expect.objectContaining({ code: "RESUME_INVALID" }) as RunError,
    );
    expect(toolsForResume("r", { version: 1 }, {})).toEqual({ recorded: false, sources: [] });
  });

  it("--recorded-tools says which modules it imports and which commands it starts, terminal-safe", () => {
    const tools = toolsForResume("r", meta, { recordedTools: true });
    expect(tools.recorded && tools.announcement).toBe(
      "deputy: --recorded-tools: loading the tool sources the run's record names:\n" +
        "  import module /srv/app/tools.mjs\n" +
        "  start command node srv.mjs \\x1b]0;owned\\x07 (in /srv/app)\n" +
        "  connect to MCP server mcp+https://h/mcp\n",
    );
    expect(() =>
      toolsForResume(
        "r",
        { version: 1, toolSources: ["mcp:stdio:srv --token ***"] },
        { recordedTools: true },
      ),
    ).toThrow(/without their secrets/);
  });
});
