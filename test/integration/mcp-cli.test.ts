/**
 * `--tools mcp:…` on the command line: the reference filesystem server read end to end through a plan, MCP
 * servers beside tools modules, bad values refused in one line (exit 2, nothing created), a resume against
 * tools that changed refused, and the server's process stopped with the run — on a normal end, on SIGTERM
 * and on a second SIGINT — checked on the real process tree (the signal tests drive bin/deputy.js over dist/).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const root = resolve(import.meta.dirname, "../..");
const BIN = join(root, "bin/deputy.js");
const FILESYSTEM = join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const HOSTILE = join(root, "test/fixtures/mcp/hostile-server.mjs");
const node = process.execPath;

function workspace(plan: object) {
  const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-cli-"));
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "data", "notes.txt"), "ship it on Friday\n");
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  return {
    dir,
    plan: join(dir, "plan.json"),
    store: join(dir, "runs.db"),
    data: join(dir, "data"),
    pidFile: join(dir, "server.pid"),
  };
}

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

async function gone(pid: number, withinMs = 10_000): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end;) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

const readNotes = (path: string) => ({
  name: "read-notes",
  nodes: [
    { id: "read", tool: "read_text_file", args: { path }, store_as: "notes" },
    {
      id: "echo",
      tool: "echo",
      depends_on: ["read"],
      args: { text: "{artifacts.notes.content}" },
      store_as: "echoed",
    },
  ],
});

describe("--tools mcp:stdio:…", () => {
  it("reads a file through the filesystem server, beside another MCP server, and stops both", async () => {
    const ws = workspace({});
    writeFileSync(ws.plan, JSON.stringify(readNotes(join(ws.data, "notes.txt"))));
    const run = await cli([
      "run",
      ws.plan,
      "--tools",
      `mcp:stdio:${node} ${FILESYSTEM} ${ws.data}`,
      "--tools",
      `mcp:stdio:${node} ${HOSTILE} --pid-file '${ws.pidFile}'`,
      "--store",
      ws.store,
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(run.stdout) as { status: string; artifacts: Record<string, unknown> };
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.notes).toEqual({ content: "ship it on Friday\n" });
    expect(manifest.artifacts.echoed).toBe("ship it on Friday\n");
    expect(await gone(Number(readFileSync(ws.pidFile, "utf8")))).toBe(true);
  });

  it("validates a plan against the server's tools, with a did-you-mean", async () => {
    const ws = workspace({
      name: "typo",
      nodes: [{ id: "r", tool: "read_txt_file", args: { path: "x" }, store_as: "r" }],
    });
    const checked = await cli(["validate", ws.plan, "--tools", `mcp:stdio:${node} ${FILESYSTEM} ${ws.data}`]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toMatch(/unknown tool "read_txt_file" \(did you mean "read_text_file"\?\)/);
  });

  it("lets a delegate read only through a server the host marks trusted", async () => {
    const ws = workspace({
      name: "delegated-read",
      nodes: [
        {
          id: "pick",
          type: "delegate",
          instruction: "Read the notes",
          tools: ["read_text_file", "write_file"],
          store_as: "notes",
        },
      ],
    });
    const proposals = join(ws.dir, "proposals.jsonl");
    const line = {
      node: "pick",
      proposal: { name: "read_text_file", arguments: { path: join(ws.data, "notes.txt") }, confidence: 0.9 },
    };
    writeFileSync(proposals, `${JSON.stringify(line)}\n`);
    const args = (spec: string) => [
      "run",
      ws.plan,
      "--tools",
      spec,
      "--delegate",
      `scripted=${proposals}`,
      "--no-store",
      "--json",
    ];
    const untrusted = await cli(args(`mcp:stdio:${node} ${FILESYSTEM} ${ws.data}`));
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toContain("side_effect_denied");
    const trusted = await cli(args(`mcp+trusted:stdio:${node} ${FILESYSTEM} ${ws.data}`));
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout).artifacts.notes).toEqual({ content: "ship it on Friday\n" });
  });

  it("refuses a value that names no server, or a server that cannot start: one line, exit 2, no store", async () => {
    const ws = workspace(readNotes("x"));
    for (const spec of [
      "mcp:stdio:",
      "mcp:stdio:node 'unclosed",
      "mcp:ftp://h",
      `mcp:stdio:${join(ws.dir, "no-such-server")}`,
    ]) {
      const run = await cli(["run", ws.plan, "--tools", spec, "--store", ws.store]);
      expect(run.code, spec).toBe(2);
      expect(run.stderr.trim().split("\n"), spec).toHaveLength(1);
      expect(run.stderr).toMatch(/MCP_SOURCE_INVALID|MCP_CONNECT_FAILED|Tools module not found/);
      expect(existsSync(ws.store)).toBe(false);
    }
  });

  it("refuses a resume whose server now defines a used tool otherwise, and resumes with the same", async () => {
    const ws = workspace({
      name: "flaky",
      nodes: [
        { id: "say", tool: "echo", args: { text: "hi" }, store_as: "said" },
        { id: "try", tool: "flaky", depends_on: ["say"], args: {}, store_as: "tried" },
      ],
    });
    const server = (...flags: string[]) => `mcp:stdio:${node} ${HOSTILE} ${flags.join(" ")}`;
    const first = await cli([
      "run",
      ws.plan,
      "--tools",
      server("--flaky", "1"),
      "--store",
      ws.store,
      "--json",
    ]);
    expect(first.code).toBe(1);
    const { runId } = JSON.parse(first.stdout) as { runId: string };

    const upgraded = await cli([
      "resume",
      runId,
      "--store",
      ws.store,
      "--tools",
      server("--flaky", "0", "--echo-description", "'Echoes, louder'"),
    ]);
    expect(upgraded.code).toBe(2);
    expect(upgraded.stderr.trim().split("\n")).toHaveLength(1);
    expect(upgraded.stderr).toMatch(/"echo" \(its description\) differs .*\[TOOLS_CHANGED\]/);

    // The same definitions (a new process, told to fail no more): the resume runs the failed node only.
    const again = await cli(["resume", runId, "--store", ws.store, "--tools", server("--flaky", "0")]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/completed/);
  });
});

describe("a resume without --tools", () => {
  it("loads every recorded source again, tools module and MCP server", async () => {
    const ws = workspace({
      name: "recorded",
      nodes: [
        { id: "say", tool: "echo", args: { text: "hi" }, store_as: "said" },
        { id: "gate", tool: "gate", depends_on: ["say"], args: {}, store_as: "gated" },
      ],
    });
    const open = join(ws.dir, "open");
    const module = join(ws.dir, "tools.mjs");
    writeFileSync(
      module,
      `import { existsSync } from "node:fs";
export const tools = [{ name: "gate", description: "open once the file exists", input: { type: "object" },
  run: () => { if (!existsSync(${JSON.stringify(open)})) throw new Error("closed"); return "open"; } }];`,
    );
    const spec = `mcp:stdio:${node} ${HOSTILE}`;
    const first = await cli([
      "run",
      ws.plan,
      "--tools",
      module,
      "--tools",
      spec,
      "--store",
      ws.store,
      "--json",
    ]);
    expect(first.code).toBe(1);
    const { runId } = JSON.parse(first.stdout) as { runId: string };
    writeFileSync(open, "");
    const resumed = await cli([
      "resume",
      runId,
      "--store",
      ws.store,
      "--tools",
      module,
      "--tools",
      spec,
      "--json",
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).artifacts).toMatchObject({ said: "hi", gated: "open" });
  });
});

/** Starts `deputy run` on a plan that calls `hang`, waits until the server is up, then sends `signals`. */
async function runAndSignal(signals: NodeJS.Signals[], args: string[] = []) {
  const ws = workspace({ name: "hang", nodes: [{ id: "h", tool: "hang", args: {}, store_as: "h" }] });
  const calls = join(ws.dir, "calls.txt");
  const child = spawn(
    node,
    [
      BIN,
      "run",
      ws.plan,
      "--tools",
      `mcp:stdio:${node} ${HOSTILE} --ignore-sigterm --pid-file ${ws.pidFile} --calls-file ${calls}`,
      "--store",
      ws.store,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  // The call is in flight: the run has started, under its graceful stop.
  while (!existsSync(calls)) await new Promise((r) => setTimeout(r, 50));
  const pid = Number(readFileSync(ws.pidFile, "utf8"));
  for (const signal of signals) {
    child.kill(signal);
    while (!stderr.includes(signal)) await new Promise((r) => setTimeout(r, 20));
  }
  return { code: await exited, pid, stderr: () => stderr };
}

describe("the server's process, with real signals", () => {
  it("a signal during set-up, before the run listens for it, takes the server down with deputy", async () => {
    const ws = workspace(readNotes("x"));
    const child = spawn(
      node,
      [
        BIN,
        "validate",
        ws.plan,
        "--tools",
        `mcp:stdio:${node} ${HOSTILE} --ignore-sigterm --pid-file ${ws.pidFile}`,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.on("exit", (_, signal) => done(signal)),
    );
    while (!existsSync(ws.pidFile)) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    const pid = Number(readFileSync(ws.pidFile, "utf8"));
    // validate never listens for signals: deputy ends as SIGTERM ends a process, and its server with it.
    expect(await exited).toBe("SIGTERM");
    expect(await gone(pid)).toBe(true);
  }, 60_000);

  it("SIGTERM: the run stops interrupted and the server, even one ignoring SIGTERM, is gone", async () => {
    const run = await runAndSignal(["SIGTERM"], ["--grace", "0"]);
    expect(run.code, run.stderr()).toBe(130);
    expect(await gone(run.pid)).toBe(true);
  }, 60_000);

  it("a second SIGINT exits at once, and the server does not outlive it", async () => {
    const run = await runAndSignal(["SIGINT", "SIGINT"], ["--grace", "600"]);
    expect(run.code).toBe(130);
    expect(run.stderr()).toMatch(/again: exiting now/);
    expect(await gone(run.pid)).toBe(true);
  }, 60_000);
});
