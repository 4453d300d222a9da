/**
 * `deputy mcp serve` as a user runs it: the real process (bin/deputy.js over dist/, built by `npm test`) driven by
 * the official MCP client over stdio and over Streamable HTTP; an escalation decided with the `deputy resolve`
 * line the answer gives, resumed with `deputy resume`, and read back through the status tool; the process ends
 * cleanly when the client closes stdin or on SIGTERM; bad input is one line, exit 2, nothing created.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

const BIN = fileURLToPath(new URL("../../../bin/deputy.js", import.meta.url));
const run = promisify(execFile);

const TOOLS = `
export const tools = [
  { name: "find_user", description: "A user by email",
    input: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    run: ({ email }) => { console.log("a tools module that logs"); return { email, name: email.split("@")[0] }; } },
  { name: "slow", description: "Takes a while",
    input: { type: "object", properties: { ms: { type: "number" } } },
    run: async ({ ms }) => { (await import("node:fs")).writeFileSync(process.env.STARTED, "1");
      await new Promise((r) => setTimeout(r, ms)); return { slept: ms }; } },
  { name: "ignore_ticket", description: "Ignore a ticket", delegateSafe: true,
    input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, run: ({ id }) => ({ ignored: id }) },
];`;

const lookup = {
  name: "lookup_user",
  objective: "Look up a user by email address.",
  inputs: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
  returns: "user",
  nodes: [{ id: "find", tool: "find_user", args: { email: "{inputs.email}" }, store_as: "user" }],
};
const classify = {
  name: "classify",
  objective: "Pick the action for a support ticket.",
  inputs: { type: "object", properties: { ticket: { type: "string" } }, required: ["ticket"] },
  returns: "decision",
  nodes: [
    {
      id: "decide",
      type: "delegate",
      instruction: "Choose an action for ticket {inputs.ticket}",
      tools: ["ignore_ticket"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "decision",
    },
  ],
};
const twoSteps = {
  name: "two_steps",
  objective: "A slow step, then a quick one.",
  returns: "second",
  nodes: [
    { id: "first", tool: "slow", args: { ms: 1500 }, store_as: "first" },
    { id: "second", tool: "slow", depends_on: ["first"], args: { ms: 1 }, store_as: "second" },
  ],
};
const PROPOSALS = JSON.stringify({
  node: "decide",
  proposal: { name: "ignore_ticket", arguments: { id: "T-1" }, confidence: 0.3 },
});

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-serve-"));
  const plans = join(dir, "plans");
  mkdirSync(plans);
  writeFileSync(join(plans, "lookup.json"), JSON.stringify(lookup));
  writeFileSync(join(plans, "classify.json"), JSON.stringify(classify));
  writeFileSync(join(plans, "two_steps.json"), JSON.stringify(twoSteps));
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  writeFileSync(join(dir, "proposals.jsonl"), PROPOSALS + "\n");
  const store = join(dir, "runs.db");
  const args = [
    BIN,
    "mcp",
    "serve",
    "--plans",
    plans,
    "--tools",
    join(dir, "tools.mjs"),
    "--delegate",
    `scripted=${join(dir, "proposals.jsonl")}`,
    "--store",
    store,
  ];
  const env = { ...process.env, STARTED: join(dir, "started") } as Record<string, string>;
  return { dir, plans, store, args, env };
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { text: string }[]).map((c) => c.text).join("");
const answerOf = (result: Awaited<ReturnType<Client["callTool"]>>) => JSON.parse(textOf(result));

/** Waits for a child to exit; its exit code (or the signal that ended it). */
/** `deputy mcp serve --http 0` with `flags`, once it says where it listens; `stderr()` is what it wrote so far. */
async function serveHttp(
  ws: ReturnType<typeof workspace>,
  flags: readonly string[],
  env: Record<string, string> = {},
) {
  const child = spawn(process.execPath, [...ws.args, "--http", "0", ...flags], {
    cwd: ws.dir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let written = "";
  child.stderr.on("data", (d: Buffer) => (written += d.toString()));
  await expect
    .poll(() => written, { timeout: 20_000, interval: 50 })
    .toMatch(/at http:\/\/127\.0\.0\.1:\d+\/mcp/);
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(written)![1]!;
  return { child, url, stderr: () => written };
}

const exited = (child: ReturnType<typeof spawn>) =>
  new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );

describe("deputy mcp serve over stdio", () => {
  it("serves the folder's plans to the official client; an escalation is decided with the answer's own commands, and the status tool reads the outcome", async () => {
    const ws = workspace();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ws.args,
      cwd: ws.dir,
      stderr: "pipe",
    });
    let serverStderr = "";
    transport.stderr!.on("data", (d: Buffer) => (serverStderr += d.toString()));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid!;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "classify",
      "deputy_run_status",
      "lookup_user",
      "two_steps",
    ]);

    // The tools module writes to console.log: over stdio that would corrupt the protocol, so it goes to stderr.
    const done = await client.callTool({ name: "lookup_user", arguments: { email: "ada@example.com" } });
    expect(answerOf(done)).toMatchObject({ status: "completed", result: { name: "ada" } });
    expect(serverStderr).toContain("a tools module that logs");

    const bad = await client.callTool({ name: "lookup_user", arguments: { mail: "ada@example.com" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(
      'Invalid arguments for `lookup_user`: missing input "email" (string); unknown input "mail" (the plan takes: email).',
    );

    const escalated = answerOf(await client.callTool({ name: "classify", arguments: { ticket: "T-1" } }));
    expect(escalated.status).toBe("escalated");
    const resolveLine: string = escalated.waiting[0].resolve;
    expect(resolveLine).toBe(
      `deputy resolve ${escalated.runId} decide (--call JSON | --value JSON | --skip) --store ${ws.store}`,
    );
    // What a person does with the answer: the resolve line (choosing --value), then the resume line.
    const resolveArgs = resolveLine
      .replace("(--call JSON | --value JSON | --skip)", "--value")
      .split(" ")
      .slice(1);
    resolveArgs.splice(resolveArgs.indexOf("--value") + 1, 0, JSON.stringify({ action: "close" }));
    await run(process.execPath, [BIN, ...resolveArgs], { cwd: ws.dir });
    await run(process.execPath, [BIN, ...(escalated.resume as string).split(" ").slice(1)], { cwd: ws.dir });
    const outcome = answerOf(
      await client.callTool({ name: "deputy_run_status", arguments: { runId: escalated.runId } }),
    );
    expect(outcome).toEqual({
      runId: escalated.runId,
      plan: "classify",
      status: "completed",
      result: { action: "close" },
    });

    // Closing the client closes the server's stdin: the server ends by itself.
    await client.close();
    await expect.poll(() => alive(pid), { timeout: 20_000, interval: 100 }).toBe(false);
  });

  it("exits 0 on SIGTERM, with its stdin still open", async () => {
    const ws = workspace();
    const child = spawn(process.execPath, ws.args, { cwd: ws.dir, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    await expect.poll(() => stderr, { timeout: 20_000, interval: 50 }).toContain("over stdio");
    const code = exited(child);
    child.kill("SIGTERM");
    expect(await code).toBe(0);
    child.stdin.end();
  });
});

describe("deputy mcp serve: a run in flight at SIGTERM, a store URL's password", () => {
  it("finishes the step in flight, commits the run `interrupted` and exits 0; `deputy resume` completes it", async () => {
    const ws = workspace();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ws.args,
      cwd: ws.dir,
      env: ws.env,
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid!;
    const call = client.callTool({ name: "two_steps", arguments: {} }).catch((e: Error) => e);
    await expect.poll(() => existsSync(ws.env.STARTED!), { timeout: 20_000, interval: 50 }).toBe(true);
    process.kill(pid, "SIGTERM");
    await expect.poll(() => alive(pid), { timeout: 20_000, interval: 100 }).toBe(false);
    await call;
    const listed = JSON.parse(
      (await run(process.execPath, [BIN, "runs", "--store", ws.store, "--json"], { cwd: ws.dir })).stdout,
    ) as { runId: string; status: string }[];
    expect(listed.map((r) => r.status)).toEqual(["interrupted"]);
    const resumed = await run(
      process.execPath,
      [BIN, "resume", listed[0]!.runId, "--store", ws.store, "--tools", join(ws.dir, "tools.mjs"), "--json"],
      {
        cwd: ws.dir,
        env: ws.env,
      },
    );
    const manifest = JSON.parse(resumed.stdout);
    expect(manifest.status).toBe("completed");
    expect(manifest.nodes.first.attempts).toBe(1); // the step in flight at SIGTERM was committed, not run again
    await client.close().catch(() => {});
  });

  it("names a postgres:// store without its password, in an answer too", async () => {
    const ws = workspace();
    const url = "postgres://deputy:pw-Secret-4711@127.0.0.1:9/nowhere";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...ws.args.slice(0, -1), url],
      cwd: ws.dir,
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const result = await client.callTool({ name: "lookup_user", arguments: { email: "ada@example.com" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Run \S+ of `lookup_user` could not run: /);
    expect(textOf(result)).not.toContain("pw-Secret-4711");
    await client.close();
  });
});

describe("deputy mcp serve --http", () => {
  it("serves Streamable HTTP on 127.0.0.1, runs a plan, and exits 0 on SIGTERM", async () => {
    const ws = workspace();
    const served = await serveHttp(ws, []);
    const { child, url } = served;
    await expect
      .poll(() => served.stderr(), { timeout: 5_000, interval: 50 })
      .toMatch(/Authorization: Bearer \S{32}/);
    const token = /Authorization: Bearer (\S+)"/.exec(served.stderr())![1]!;
    // Without the token it printed, a local process can neither list nor start the plans.
    const anonymous = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(anonymous.status).toBe(401);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const answer = answerOf(
      await client.callTool({ name: "lookup_user", arguments: { email: "bo@example.com" } }),
    );
    expect(answer).toMatchObject({ status: "completed", result: { email: "bo@example.com", name: "bo" } });
    await client.close();
    // A page of another site may not drive it (DNS rebinding, cross-site requests).
    const foreign = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(foreign.status).toBe(403);
    const code = exited(child);
    child.kill("SIGTERM");
    expect(await code).toBe(0);
  });

  it("takes the token from --token-file or --token-env and does not print it", async () => {
    const ws = workspace();
    const token = "file-token-0123456789abcdef";
    writeFileSync(join(ws.dir, "token"), token + "\n");
    for (const [flags, env] of [
      [["--token-file", join(ws.dir, "token")], {}],
      [["--token-env", "MY_MCP_TOKEN"], { MY_MCP_TOKEN: token }],
    ] as const) {
      const { child, url, stderr } = await serveHttp(ws, flags, env);
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("lookup_user");
      await client.close();
      const code = exited(child);
      child.kill("SIGTERM");
      expect(await code).toBe(0);
      expect(stderr()).not.toContain(token);
      expect(stderr()).not.toContain("Authorization: Bearer");
    }
    const fresh = workspace();
    const unset = await cli([...fresh.args.slice(1), "--http", "0", "--token-env", "UNSET_TOKEN_VAR_4711"]);
    expect(unset.code).toBe(2);
    expect(unset.stderr.trim().split("\n")).toHaveLength(1);
    expect(unset.stderr).toContain("--token-env");
    expect(existsSync(fresh.store)).toBe(false);
  });

  it("refuses a port in use: one line, exit 2, no store created", async () => {
    const ws = workspace();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const out = await cli([...ws.args.slice(1), "--http", String(port)]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim().split("\n")).toHaveLength(1);
      expect(out.stderr).toContain(`a port free on 127.0.0.1 (in use), got ${port}`);
      expect(existsSync(ws.store)).toBe(false);
    } finally {
      holder.close();
    }
  });
});

describe("deputy mcp serve: bad input", () => {
  it("no --plans, an empty folder, an invalid plan, a bad --http: one line, exit 2, no store created", async () => {
    const ws = workspace();
    const empty = join(ws.dir, "empty");
    mkdirSync(empty);
    const invalid = join(ws.dir, "invalid");
    mkdirSync(invalid);
    writeFileSync(join(invalid, "lookup.json"), JSON.stringify(lookup));
    writeFileSync(join(invalid, "typo.json"), JSON.stringify({ ...lookup, name: "typo", returns: "usr" }));
    const notJson = join(ws.dir, "not-json");
    mkdirSync(notJson);
    writeFileSync(join(notJson, "plan.json"), "{ nope");
    const base = ["mcp", "serve", "--tools", join(ws.dir, "tools.mjs"), "--store", ws.store];
    const cases: [string[], RegExp][] = [
      [base, /required option '--plans <dir>' not specified/],
      [[...base, "--plans", empty], /No plans in .*empty/],
      [[...base, "--plans", join(ws.dir, "missing")], /Plans folder not found/],
      [
        [...base, "--plans", invalid],
        /typo\.json: the plan is invalid \(1 issue: unknown_returns: returns "usr"/,
      ],
      [[...base, "--plans", notJson], /plan\.json is not a JSON file/],
      [[...base, "--plans", ws.plans, "--http", "port"], /Expected `--http` to be a port/],
      [[...base, "--plans", ws.plans, "--console-url", "javascript:alert(1)"], /--console-url/],
    ];
    for (const [args, message] of cases) {
      const out = await cli(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr.trim().split("\n"), out.stderr).toHaveLength(1);
      expect(out.stderr).toMatch(message);
    }
    expect(existsSync(ws.store)).toBe(false);
  });
});

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
