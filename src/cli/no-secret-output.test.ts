import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { secretShapes } from "../../test/secret-shapes.js";
import { main } from "./main.js";

const TOOLS = `export const tools = [
  { name: "fail", description: "fails, quoting what it was given", input: { type: "object", properties: { why: { type: "string" } } },
    run: () => { throw new Error("upstream refused: " + process.env.DEPUTY_TEST_UPSTREAM_TEXT); } },
  { name: "note", description: "records a note", delegateSafe: true,
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
    run: ({ text }) => ({ ok: true, length: text.length }) },
];`;

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "deputy-secret-"));
  writeFileSync(join(dir, "tools.mjs"), TOOLS);
  return { dir, at: (n: string) => join(dir, n) };
}

/** Everything deputy wrote in the workspace (store, its WAL, traces), as text. */
function written(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f !== "tools.mjs" && f !== "plan.json" && f !== "proposals.jsonl")
    .map((f) => readFileSync(join(dir, f)).toString("latin1"))
    .join("\n");
}

async function cli(args: string[]) {
  let out = "";
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (out += t), isTTY: false });
  return { code, out };
}

// The plan itself holds no secret (a plan, like an artifact, is the run's data and is stored as given): secrets
// arrive the way they do in practice, from a tool's environment and from a model's output.
function plan() {
  return {
    name: "secrets",
    nodes: [
      { id: "tool_error", tool: "fail", args: { why: "connect" }, store_as: "x" },
      {
        id: "delegated",
        type: "delegate",
        instruction: "Write a note",
        tools: ["note"],
        min_confidence: 0.9,
        on_reject: "escalate",
        store_as: "y",
      },
    ],
  };
}

describe("secret-bearing inputs reach no output (generated; real CLI, SQLite store, JSONL traces)", () => {
  it("tool errors, escalated proposals, backend errors and facts: nothing in stdout, stderr, store or traces", async () => {
    await fc.assert(
      fc.asyncProperty(secretShapes, fc.boolean(), async ({ text, secret }, backendError) => {
        const ws = workspace();
        writeFileSync(ws.at("plan.json"), JSON.stringify(plan()));
        process.env.DEPUTY_TEST_UPSTREAM_TEXT = text;
        const entry = backendError
          ? { node: "delegated", error: `model server said: ${text}` }
          : { node: "delegated", proposal: { name: "note", arguments: { text }, confidence: 0.5 } };
        writeFileSync(ws.at("proposals.jsonl"), JSON.stringify(entry) + "\n");
        const common = ["--tools", ws.at("tools.mjs"), "--store", ws.at("runs.db")];
        const run = await cli([
          "run",
          ws.at("plan.json"),
          ...common,
          "--delegate",
          `scripted=${ws.at("proposals.jsonl")}`,
          "--traces",
          ws.at("traces.jsonl"),
        ]);
        const human = await cli(["runs", "--store", ws.at("runs.db")]);
        const runId = human.out.split(/\s/)[0]!;
        const json = await cli(["runs", runId, "--store", ws.at("runs.db"), "--json"]);
        const traces = await cli(["traces", ws.at("traces.jsonl")]);
        for (const output of [run.out, human.out, json.out, traces.out, written(ws.dir)]) {
          expect(output).not.toContain(secret);
        }
        expect(run.out).toMatch(/tool_error/);
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it("an OpenAI-compatible server that echoes the API key in its error body gets it nowhere", async () => {
    // A key with no recognisable shape: only knowing it is the backend's key can redact it.
    const key = "zq7Xv0-plain-looking-key-4242";
    const server = createServer((req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `invalid api key: ${req.headers.authorization ?? ""}` }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    process.env.DEPUTY_TEST_UPSTREAM = key;
    try {
      const ws = workspace();
      writeFileSync(ws.at("plan.json"), JSON.stringify(plan()));
      const run = await cli([
        "run",
        ws.at("plan.json"),
        "--tools",
        ws.at("tools.mjs"),
        "--store",
        ws.at("runs.db"),
        "--delegate",
        `openai=http://127.0.0.1:${port},apiKeyEnv=DEPUTY_TEST_UPSTREAM,model=m`,
        "--traces",
        ws.at("traces.jsonl"),
      ]);
      expect(run.out).toMatch(/401|backend_error/);
      for (const output of [run.out, written(ws.dir)]) expect(output).not.toContain(key);
    } finally {
      delete process.env.DEPUTY_TEST_UPSTREAM;
      server.close();
    }
  }, 60_000);
});
