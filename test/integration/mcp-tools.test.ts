/**
 * MCP servers as tool sources, against servers nobody here wrote (the reference "everything" server over stdio
 * and Streamable HTTP) and against a hostile one of our own (test/fixtures/mcp/hostile-server.mjs): tools that
 * fail, die, hang, answer too much, or claim to be read-only.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent } from "../../src/agents/define-agent.js";
import { McpSourceError } from "../../src/errors/mcp-source-error.js";
import { runPlan, ScriptedDelegate } from "../../src/index.js";
import { mcpTools, type McpTools } from "../../src/mcp/mcp-tools.js";

const root = resolve(import.meta.dirname, "../..");
const EVERYTHING = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const HOSTILE = join(root, "test/fixtures/mcp/hostile-server.mjs");
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "deputy-mcp-"));

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

const hostile = (...flags: string[]) => ({ command: node, args: [HOSTILE, ...flags] });

function toolPlan(tool: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { name: "mcp", nodes: [{ id: "call", tool, args, store_as: "out", ...extra }] };
}

describe("the everything server over stdio", () => {
  let everything: McpTools;
  beforeAll(async () => {
    everything = await mcpTools({ command: node, args: [EVERYTHING, "stdio"] });
  });
  afterAll(() => everything?.close());

  it("gives its tools with their schemas and hints, none delegate-safe when untrusted", () => {
    const echo = everything.tools.find((t) => t.name === "echo")!;
    expect(echo.description).toBe("Echoes back the input string");
    expect(echo.parameters).toMatchObject({ type: "object", required: ["message"] });
    expect(echo.annotations).toMatchObject({ readOnlyHint: true });
    expect(everything.tools.every((t) => !t.delegateSafe)).toBe(true);
    expect(everything.servers[0]!.reported?.name).toBe("mcp-servers/everything");
  });

  it("runs in a plan: text, structured content, and a refusal of bad arguments before the call", async () => {
    const manifest = await runPlan(
      {
        name: "everything",
        nodes: [
          { id: "echo", tool: "echo", args: { message: "hi" }, store_as: "echo" },
          { id: "sum", tool: "get-sum", args: { a: 2, b: 3 }, store_as: "sum" },
          {
            id: "weather",
            tool: "get-structured-content",
            args: { location: "New York" },
            store_as: "weather",
          },
        ],
      },
      { tools: everything },
    );
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts).toMatchObject({ echo: "Echo: hi", sum: "The sum of 2 and 3 is 5." });
    expect(manifest.artifacts.weather).toMatchObject({ temperature: expect.any(Number) });
  });
});

describe("MCP tools in an agent", () => {
  it("are offered to its model with the server's schema, and its calls go to the server", async () => {
    await using everything = await mcpTools({ command: node, args: [EVERYTHING, "stdio"] });
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 5, text: 5, reasoning: 0 },
    };
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "1", toolName: "get-sum", input: '{"a":40,"b":2}' }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "42" }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const agent = defineAgent({
      name: "Adder",
      backend: model,
      tools: everything,
      actions: { ask: ({ q }: { q: string }) => q },
    });
    const result = await agent.run("ask", { q: "40 + 2?" });
    expect(result.text).toBe("42");
    expect(result.steps[0]!.toolResults[0]!.output).toBe("The sum of 40 and 2 is 42.");
    const offered = model.doGenerateCalls[0]!.tools!.find((t) => t.name === "get-sum");
    expect(offered).toMatchObject({ inputSchema: { type: "object", required: ["a", "b"] } });
  });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

describe("the everything server over Streamable HTTP", () => {
  let server: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    server = spawn(node, [EVERYTHING, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    await new Promise<void>((ready, fail) => {
      server.stderr!.on("data", (c: Buffer) => {
        log += String(c);
        if (log.includes("listening")) ready();
      });
      server.once("exit", () => fail(new Error(`the server exited: ${log}`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(() => {
    server?.kill();
  });

  it("runs its tools in a plan, and a trusted server's read-only tool is delegate-safe", async () => {
    await using http = await mcpTools({ url, trusted: true });
    expect(http.tools.find((t) => t.name === "echo")?.delegateSafe).toBe(true);
    // `readOnlyHint: false` needs the double key, even from a trusted server.
    expect(http.tools.find((t) => t.name === "toggle-simulated-logging")?.delegateSafe).toBe(false);
    const manifest = await runPlan(toolPlan("echo", { message: "over http" }), { tools: http });
    expect(manifest.artifacts.out).toBe("Echo: over http");
  });

  it("prefixes names that clash, between servers and with other tools given", async () => {
    await using both = await mcpTools(
      [
        { url, name: "web" },
        { command: node, args: [HOSTILE] },
      ],
      { besides: ["get-sum"] },
    );
    const names = both.tools.map((t) => t.name);
    // Both servers have `echo`; `get-sum` is taken by a tool given beside them.
    expect(names).toEqual(expect.arrayContaining(["web_echo", "hostile_echo", "web_get-sum", "flaky"]));
    expect(names).not.toContain("echo");
    const manifest = await runPlan(toolPlan("hostile_echo", { text: "mine" }), { tools: both });
    expect(manifest.artifacts.out).toBe("mine");
  });

  it("refuses an unreachable URL in one line naming it", async () => {
    const port = await freePort();
    const error = await mcpTools({ url: `http://127.0.0.1:${port}/mcp` }).catch((e: unknown) => e);
    expect(McpSourceError.isInstance(error)).toBe(true);
    expect((error as McpSourceError).code).toBe("MCP_CONNECT_FAILED");
    expect((error as Error).message).toContain(`127.0.0.1:${port}/mcp`);
  });

  it("says why it could not connect: refused, a web page on a wrong path (its status, not its HTML), no such host", async () => {
    const reason = async (at: string) =>
      ((await mcpTools({ url: at }).catch((e: unknown) => e)) as Error).message;
    const refused = await reason(`http://127.0.0.1:${await freePort()}/mcp`);
    expect(refused).toContain("connection refused");
    expect(refused).not.toContain("fetch failed");
    const page = await reason(url.replace(/\/mcp$/, "/no-such-path"));
    expect(page).toMatch(
      /answered HTTP 404 with a web page, not MCP \(is the URL's path the server's MCP endpoint/,
    );
    expect(page).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
    expect(await reason("http://no-such-host.invalid/mcp")).toContain("host not found");
  });
});

describe("a hostile server", () => {
  it("with an input schema that is not JSON Schema is refused, naming the tool", async () => {
    for (const [flag, tool, why] of [
      ["--bad-schema", "weird", /not a valid JSON Schema|cannot be used/],
      ["--not-object", "stringly", /not a JSON Schema object/],
    ] as const) {
      const pidFile = join(dir, `pid-${tool}`);
      const error = await mcpTools(hostile(flag, "--pid-file", pidFile)).catch((e: unknown) => e);
      expect(McpSourceError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: "MCP_TOOLS_INVALID", tool });
      expect((error as Error).message).toMatch(why);
      // Refused, and stopped: nothing is left running.
      expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    }
  });

  it("gives tool errors: isError retried per the node's retry, a JSON-RPC error, a result too large", async () => {
    await using tools = await mcpTools(hostile("--flaky", "2"), { maxResultBytes: 1_000_000 });
    const retried = await runPlan(toolPlan("flaky", {}, { retry: { max_attempts: 3 } }), { tools });
    expect(retried.status).toBe("completed");
    expect(retried.artifacts.out).toBe("finally");
    expect(retried.nodes.call!.attempts).toBe(3);

    const rpc = await runPlan(toolPlan("rpc_error"), { tools });
    expect(rpc.nodes.call!.errors[0]).toMatchObject({ code: "TOOL_FAILED" });
    expect(rpc.nodes.call!.errors[0]!.message).toMatch(/the backend is down/);

    const huge = await runPlan(toolPlan("huge"), { tools });
    expect(huge.nodes.call!.errors[0]).toMatchObject({ code: "TOOL_RESULT_TOO_LARGE" });
    expect(huge.nodes.call!.errors[0]!.message).toMatch(/more than the bound of 1000000/);
    // The connection outlived the refusal.
    expect((await runPlan(toolPlan("echo", { text: "still here" }), { tools })).artifacts.out).toBe(
      "still here",
    );
  });

  it("that dies mid-call fails the call with its last words, and is started again for the retry", async () => {
    await using tools = await mcpTools(hostile("--state-file", join(dir, "died-once")));
    const first = tools.servers[0]!.pid!;
    const retried = await runPlan(toolPlan("die_once", {}, { retry: { max_attempts: 2 } }), { tools });
    expect(retried.status).toBe("completed");
    expect(retried.artifacts.out).toBe("survived");
    expect(retried.nodes.call!.attempts).toBe(2);
    expect(alive(first)).toBe(false);
    expect(tools.servers[0]!.pid).not.toBe(first);
  });

  it("that keeps dying is started again at most 3 times, then every call fails at once", async () => {
    await using tools = await mcpTools(hostile());
    const died = await runPlan(toolPlan("die", {}, { retry: { max_attempts: 5 } }), { tools });
    expect(died.nodes.call!.errors[0]).toMatchObject({ code: "TOOL_FAILED" });
    expect(died.nodes.call!.errors[0]!.message).toMatch(
      /restarted 3 times already \(its stderr: dying now\)/,
    );
    const later = await runPlan(toolPlan("echo", { text: "x" }), { tools });
    expect(later.nodes.call!.errors[0]!.message).toMatch(/the server is gone/);
    expect(tools.servers[0]!.pid).toBeUndefined(); // none running
  });

  it("that never answers is cut off by the node's timeout", async () => {
    await using tools = await mcpTools(hostile());
    const manifest = await runPlan(toolPlan("hang", {}, { timeout: 0.5 }), { tools });
    expect(manifest.nodes.call!.status).toBe("error");
    expect(manifest.nodes.call!.errors[0]!.code).toMatch(/TIMEOUT|ABORTED/);
  });

  it("claiming read-only does not make its tools delegate-safe unless the host trusts it", async () => {
    const proposal = { node: "pick", proposal: { name: "wipe", arguments: {}, confidence: 0.99 } };
    const plan = {
      name: "claims",
      nodes: [{ id: "pick", type: "delegate", instruction: "Tidy up", tools: ["wipe"], store_as: "out" }],
    };
    await using untrusted = await mcpTools(hostile());
    const denied = await runPlan(plan, {
      tools: untrusted,
      delegates: [new ScriptedDelegate({ entries: [proposal] })],
    });
    expect(denied.nodes.pick!.status).toBe("error");
    expect(JSON.stringify(denied.nodes.pick)).toContain("side_effect_denied");

    await using trusted = await mcpTools({ ...hostile(), trusted: true });
    const accepted = await runPlan(plan, {
      tools: trusted,
      delegates: [new ScriptedDelegate({ entries: [proposal] })],
    });
    expect(accepted.status).toBe("completed");
    expect(accepted.artifacts.out).toBe("wiped");
  });
});

describe("the server's process", () => {
  it("is stopped by close(), even one that ignores SIGTERM and its closed stdin", async () => {
    const tools = await mcpTools(hostile("--ignore-sigterm"));
    const pid = tools.servers[0]!.pid!;
    expect(alive(pid)).toBe(true);
    await tools.close();
    expect(await gone(pid)).toBe(true);
  });

  it("is killed when the host process crashes without closing it", async () => {
    const pidFile = join(dir, "crash-pid");
    const script = join(dir, "crash.mts");
    writeFileSync(
      script,
      `import { mcpTools } from ${JSON.stringify(join(root, "src/mcp/mcp-tools.ts"))};
await mcpTools({ command: process.execPath, args: [${JSON.stringify(HOSTILE)}, "--ignore-sigterm", "--pid-file", ${JSON.stringify(pidFile)}] });
throw new Error("crash");`,
    );
    const child = spawn(node, ["--import", "tsx", script], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += String(c)));
    const [code] = (await once(child, "exit")) as [number];
    expect(code, stderr).not.toBe(0);
    expect(stderr).toContain("crash");
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });
});
