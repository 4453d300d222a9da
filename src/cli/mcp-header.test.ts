/**
 * `--tools mcp+http://…` with `--mcp-header` / `--mcp-headers-file`: the real CLI reaches a real MCP server that
 * requires a bearer token (deputy's own plan server, `deputy mcp serve --http` in process) with the header, and
 * the token — generated, in no known secret shape, so no redactor would catch it — reaches nothing deputy keeps
 * or prints: not the run's row and WAL in SQLite, not `deputy runs --json`, not the traces, not the terminal.
 * Bad header flags are one line on stderr, exit 2, nothing created.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePlansHttp, type RunningPlanServer } from "../mcp/serve-http.js";
import { servePlans, type PlanServer } from "../mcp/serve-plans.js";
import { defineTool } from "../tools/define-tool.js";
import { main } from "./main.js";

const TOKEN = randomBytes(24).toString("hex");
let plans: PlanServer;
let http: RunningPlanServer;

beforeAll(async () => {
  const findUser = defineTool({
    name: "find_user",
    description: "A user by email",
    input: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    run: ({ email }: { email: string }) => ({ email, name: email.split("@")[0] }),
  });
  const lookup = {
    name: "lookup_user",
    objective: "Look up a user by email address.",
    inputs: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    returns: "user",
    nodes: [{ id: "find", tool: "find_user", args: { email: "{inputs.email}" }, store_as: "user" }],
  };
  plans = servePlans({ plans: [lookup], tools: [findUser] });
  http = await servePlansHttp(plans, { token: TOKEN });
});
afterAll(async () => {
  await plans?.close();
  await http?.close();
});

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-header-"));
  const plan = {
    name: "via_mcp",
    objective: "Look two users up through the MCP server.",
    nodes: [
      { id: "find", tool: "lookup_user", args: { email: "ada@example.com" }, store_as: "ada" },
      {
        id: "pick",
        type: "delegate",
        instruction: "Look up bo",
        tools: ["lookup_user"],
        allow_side_effects: true,
        depends_on: ["find"],
        store_as: "bo",
      },
    ],
  };
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  const proposal = { name: "lookup_user", arguments: { email: "bo@example.com" }, confidence: 0.99 };
  writeFileSync(join(dir, "proposals.jsonl"), JSON.stringify({ node: "pick", proposal }) + "\n");
  writeFileSync(join(dir, "headers.txt"), `# for the plan server\nAuthorization: Bearer ${TOKEN}\n`);
  const at = (name: string) => join(dir, name);
  const args = (...extra: string[]) => [
    "run",
    at("plan.json"),
    "--tools",
    `mcp+${http.url}`,
    "--delegate",
    `scripted=${at("proposals.jsonl")}`,
    "--allow-delegate-side-effects",
    "--store",
    at("runs.db"),
    "--traces",
    at("traces.jsonl"),
    ...extra,
  ];
  return { dir, at, args };
}

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTTY: false });
  return { code, out, err };
}

/** Everything deputy wrote in the workspace (store, WAL, traces), as text. */
const written = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f !== "headers.txt")
    .map((f) => readFileSync(join(dir, f)).toString("latin1"))
    .join("\n");

describe("--mcp-header", () => {
  it("reaches a server that requires a bearer token, and the token reaches no row, listing, trace or terminal", async () => {
    const ws = workspace();
    const refused = await cli(ws.args("--json"));
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/401|Unauthorized/);

    const first = await cli(ws.args("--json", "--mcp-header", `Authorization: Bearer ${TOKEN}`));
    expect(first.err).toBe("");
    const manifest = JSON.parse(first.out);
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.ada).toMatchObject({ status: "completed", result: { name: "ada" } });
    expect(manifest.artifacts.bo).toMatchObject({ status: "completed", result: { name: "bo" } });
    const second = await cli(ws.args("--json", "--mcp-headers-file", ws.at("headers.txt")));
    expect(JSON.parse(second.out).status).toBe("completed");

    const listing = await cli(["runs", "--store", ws.at("runs.db"), "--json"]);
    const shown = await cli(["runs", manifest.runId, "--store", ws.at("runs.db"), "--json"]);
    expect(existsSync(ws.at("traces.jsonl"))).toBe(true);
    expect(readFileSync(ws.at("traces.jsonl"), "utf8")).toContain("lookup_user");
    for (const text of [first.out, second.out, listing.out, shown.out, shown.err, written(ws.dir)])
      expect(text).not.toContain(TOKEN);
    // The record names the server, so a resume can be told the same --tools (and the header again).
    expect(written(ws.dir)).toContain(`mcp+${http.url}`);

    // A resume is given the header again, as it is given the tools (nothing of it was kept).
    const resume = (...extra: string[]) =>
      cli([
        "resume",
        manifest.runId,
        "--tools",
        `mcp+${http.url}`,
        "--allow-delegate-side-effects",
        "--store",
        ws.at("runs.db"),
        ...extra,
      ]);
    expect((await resume()).err).toMatch(/401|Unauthorized/);
    const resumed = await resume("--json", "--mcp-headers-file", ws.at("headers.txt"));
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out).status).toBe("completed");
  });

  it("refuses bad header flags with one line on stderr, exit 2, and creates nothing; no value is quoted", async () => {
    const ws = workspace();
    const cases: string[][] = [
      ["--mcp-header", TOKEN], // a bare token, no name
      ["--mcp-header", `Bad Name: ${TOKEN}`],
      ["--mcp-header", "Authorization:"],
      ["--mcp-header", `Content-Type: ${TOKEN}`],
      ["--mcp-header", `X-Key: ${TOKEN}`, "--mcp-header", `x-key: ${TOKEN}`],
      ["--mcp-headers-file", ws.at("missing.txt")],
    ];
    for (const extra of cases) {
      const { code, err } = await cli(ws.args(...extra));
      expect(code, extra.join(" ")).toBe(2);
      expect(err.trim().split("\n"), err).toHaveLength(1);
      expect(err).not.toContain(TOKEN);
    }
    // Headers with no server over HTTP to send them to, or with servers of two origins.
    const noServer = await cli([
      "run",
      ws.at("plan.json"),
      "--store",
      ws.at("runs.db"),
      "--mcp-header",
      `Authorization: Bearer ${TOKEN}`,
    ]);
    expect(noServer.code).toBe(2);
    expect(noServer.err).toMatch(/--mcp-header/);
    const other = http.url.replace("127.0.0.1", "localhost");
    const twoOrigins = await cli([
      ...ws.args("--mcp-header", `Authorization: Bearer ${TOKEN}`),
      "--tools",
      `mcp+${other}`,
    ]);
    expect(twoOrigins.code).toBe(2);
    expect(twoOrigins.err).toMatch(/one origin/);
    expect(twoOrigins.err).not.toContain(TOKEN);
    expect(readdirSync(ws.dir).sort()).toEqual(["headers.txt", "plan.json", "proposals.jsonl"]);
  });
});
