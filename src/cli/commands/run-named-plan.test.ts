/** `deputy run NAME --plans DIR` with declared inputs: checked before anything runs, read as {inputs.key}. */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

const tools = `
export default [
  { name: "echo", description: "Echo", delegateSafe: true,
    input: { type: "object", properties: { text: { type: "string" }, count: { type: "integer" } }, required: ["text"] },
    run: (args) => args },
];
`;

const greet = {
  name: "greet",
  inputs: {
    type: "object",
    properties: { who: { type: "string" }, times: { type: "integer", minimum: 1 } },
    required: ["who"],
  },
  nodes: [
    {
      id: "say",
      tool: "echo",
      args: { text: "hello {inputs.who}", count: "{inputs.times}" },
      store_as: "said",
    },
  ],
};

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy run NAME --plans DIR", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-named-"));
  const plans = join(dir, "plans");
  mkdirSync(plans);
  writeFileSync(join(plans, "greeting.json"), JSON.stringify(greet));
  writeFileSync(join(dir, "tools.mjs"), tools);
  const run = (...args: string[]) =>
    cli(["run", ...args, "--plans", plans, "--tools", join(dir, "tools.mjs"), "--no-store", "--json"]);

  it("runs a plan by name with --input values, parsed as JSON when they parse", async () => {
    const r = await run("greet", "--input", "who=world", "--input", "times=2");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).artifacts.said).toEqual({ text: "hello world", count: 2 });
  });

  it("takes --inputs as one JSON object, and finds the plan by its file name too", async () => {
    const r = await run("greeting", "--inputs", '{"who":"json","times":3}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).artifacts.said).toEqual({ text: "hello json", count: 3 });
  });

  it("refuses a missing required input, an unknown one and a wrong type, one line each, exit 2, nothing run", async () => {
    const missing = await run("greet", "--input", "times=1");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('deputy: missing input "who" (string)\n');
    const unknown = await run("greet", "--input", "who=a", "--input", "colour=red");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('deputy: unknown input "colour" (the plan takes: who, times)\n');
    const wrong = await run("greet", "--input", "who=a", "--input", "times=many");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe("deputy: input times: must be integer\n");
    const both = await run("greet", "--input", "times=0");
    expect(both.stderr.trim().split("\n")).toHaveLength(1); // missing first; values are checked once all are there
    expect(missing.stdout + unknown.stdout + wrong.stdout).toBe("");
  });

  it("says which plans there are when the name does not exist (exit 2)", async () => {
    const r = await run("nope", "--input", "who=a");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No plan named "nope"');
    expect(r.stderr).toContain("plans there: greet");
  });

  it("still runs a plan file without --plans, its inputs checked the same way", async () => {
    const file = join(plans, "greeting.json");
    const tools = join(dir, "tools.mjs");
    const ok = await cli([
      "run",
      file,
      "--tools",
      tools,
      "--no-store",
      "--json",
      "--input",
      "who=file",
      "--input",
      "times=1",
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).artifacts.said.text).toBe("hello file");
    const missing = await cli(["run", file, "--tools", tools, "--no-store", "--json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing input "who"');
  });
});
