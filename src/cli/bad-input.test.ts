import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "./main.js";

const BIN = fileURLToPath(new URL("../../bin/deputy.js", import.meta.url));

const TOOLS = `export const tools = [
  { name: "echo", description: "echo", input: { type: "object", properties: { v: {} } }, run: (a) => a.v ?? "x" },
  { name: "big", description: "a BigInt", input: { type: "object" }, run: () => ({ n: 10n }) },
  { name: "circ", description: "a cycle", input: { type: "object" }, run: () => { const o = {}; o.self = o; return o; } },
  { name: "fn", description: "a function", input: { type: "object" }, run: () => ({ f() {} }) },
];`;
const PLAN = {
  name: "p",
  objective: "o",
  nodes: [{ id: "a", tool: "echo", args: { v: "hi" }, store_as: "a" }],
};

/** A directory with a plan, tools and odd files; `snapshot` lists everything in it (names, sizes, times). */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "deputy-bad-"));
  const at = (name: string) => join(dir, name);
  writeFileSync(at("tools.mjs"), TOOLS);
  writeFileSync(at("plan.json"), JSON.stringify(PLAN));
  writeFileSync(
    at("dup.mjs"),
    `export const tools = [1, 2].map(() => ({ name: "a", description: "a", input: { type: "object" }, run: () => 1 }));`,
  );
  writeFileSync(at("cjs.cjs"), `module.exports = { tools: [] };`);
  writeFileSync(
    at("badschema.mjs"),
    `export const tools = [{ name: "a", description: "a", input: { type: "objekt" }, run: () => 1 }];`,
  );
  writeFileSync(at("notdb"), "hello, not a database\n");
  // JSON.parse's message quotes the text it failed on, line breaks included.
  writeFileSync(at("notjson.json"), "hello\nworld\n{\n");
  mkdirSync(at("adir"));
  const snapshot = () =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .sort()
      .map((f) => `${f}:${statSync(join(dir, f)).size}:${statSync(join(dir, f)).mtimeMs}`);
  return { dir, at, snapshot };
}

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("bad input: exit 2, one clear line, nothing created or changed", () => {
  const ws = workspace();
  const cases: [string, (at: (n: string) => string) => string[], RegExp][] = [
    [
      "duplicate tool names",
      (at) => ["run", at("plan.json"), "--tools", at("dup.mjs")],
      /two tools are named "a"/,
    ],
    [
      "a store that is a directory",
      (at) => ["run", at("plan.json"), "--tools", at("tools.mjs"), "--store", at("adir")],
      /adir is a directory/,
    ],
    [
      "a store that is not SQLite",
      (at) => ["run", at("plan.json"), "--tools", at("tools.mjs"), "--store", at("notdb")],
      /notdb is not an SQLite database/,
    ],
    ["runs --limit abc", (at) => ["runs", "--limit", "abc", "--store", at("runs.db")], /--limit/],
    [
      "a missing scripted file",
      (at) => [
        "run",
        at("plan.json"),
        "--tools",
        at("tools.mjs"),
        "--delegate",
        `scripted=${at("nope.jsonl")}`,
      ],
      /Scripted proposals file not found: .*nope\.jsonl/,
    ],
    [
      "a plan path that is a directory",
      (at) => ["run", at("adir"), "--tools", at("tools.mjs")],
      /is a directory, not a plan file/,
    ],
    ["a CommonJS tools module", (at) => ["run", at("plan.json"), "--tools", at("cjs.cjs")], /CommonJS/],
    [
      "a tool input schema that is not JSON Schema",
      (at) => ["validate", at("plan.json"), "--tools", at("badschema.mjs")],
      /valid JSON Schema/,
    ],
    [
      "a plan file that is not JSON (its message quotes lines)",
      (at) => ["validate", at("notjson.json"), "--tools", at("tools.mjs")],
      /notjson\.json is not valid JSON/,
    ],
    [
      "run without --tools: one line naming the flag, not an unknown tool per node",
      (at) => ["run", at("plan.json")],
      /No tools module was given.*node a\b.*--tools MODULE/,
    ],
    [
      "eval with a spec option every kind takes, checked (relevance= reaches deputy eval too)",
      () => [
        "eval",
        "--delegate",
        `scripted=${join(import.meta.dirname, "../../examples/alert-triage/proposals.jsonl")},relevance=encoder:7`,
        "--suite",
        join(import.meta.dirname, "../../test/fixtures/bfcl"),
        "--limit",
        "1",
      ],
      /relevance in --delegate .*encoder:T/,
    ],
    ["an unknown command (commander's did-you-mean)", () => ["rn", "plan.json"], /unknown command 'rn'.*run/],
    [
      "an unknown option (commander's did-you-mean)",
      (at) => ["run", at("plan.json"), "--tool", at("tools.mjs")],
      /unknown option '--tool'.*--tools/,
    ],
    [
      "resume with a mistyped --store",
      (at) => ["resume", "some-run", "--store", at("typo/runs.db")],
      /No run store at .*typo/,
    ],
    [
      "resolve with a mistyped --store",
      (at) => ["resolve", "some-run", "a", "--skip", "--store", at("typo2/runs.db")],
      /No run store at .*typo2/,
    ],
    [
      "runs RUN with a mistyped --store",
      (at) => ["runs", "some-run", "--store", at("typo3/runs.db")],
      /No run store/,
    ],
  ];
  it.each(cases)("%s", async (_name, args, message) => {
    const before = ws.snapshot();
    const out = await cli(args(ws.at));
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(message);
    expect(ws.snapshot()).toEqual(before);
  });

  it("a store locked by another process is named as locked, not as 'already exists'", async () => {
    const store = ws.at("locked.db");
    // Another process: SQLite's locks are per process, so a second connection in this one would not see it.
    const holder = spawn(process.execPath, [
      "-e",
      `const { DatabaseSync } = require("node:sqlite"); const db = new DatabaseSync(${JSON.stringify(store)});
       db.exec("CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);"); console.log("locked");
       setTimeout(() => {}, 60000);`,
    ]);
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    try {
      const out = await cli(["run", ws.at("plan.json"), "--tools", ws.at("tools.mjs"), "--store", store]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/locked/);
      expect(out.stderr).not.toMatch(/already exists/);
    } finally {
      holder.kill();
    }
  }, 30_000);

  it("--no-store prints no resume hint", async () => {
    const plan = { name: "p", nodes: [{ id: "a", tool: "fn", args: {}, store_as: "a" }] };
    writeFileSync(ws.at("fails.json"), JSON.stringify(plan));
    const out = await cli(["run", ws.at("fails.json"), "--tools", ws.at("tools.mjs"), "--no-store"]);
    expect(out.code).toBe(1);
    expect(out.stdout).not.toMatch(/resume/);
  });
});

describe("values are checked at the boundary", () => {
  it.each(["big", "circ", "fn"])(
    "a tool result that is not JSON (%s) is a node error and the run fails",
    async (tool) => {
      const ws = workspace();
      const plan = {
        name: "p",
        nodes: [
          { id: "produce", tool, args: {}, store_as: "x" },
          { id: "list", tool: "echo", args: { v: [1, 2] }, store_as: "list" },
          {
            id: "each",
            tool,
            args: {},
            depends_on: ["list"],
            store_as: "y_{index}",
            for_each: { source: "{artifacts.list}" },
          },
        ],
      };
      writeFileSync(ws.at("p.json"), JSON.stringify(plan));
      const store = ws.at("runs.db");
      const run = await cli([
        "run",
        ws.at("p.json"),
        "--tools",
        ws.at("tools.mjs"),
        "--store",
        store,
        "--json",
      ]);
      expect(run.code).toBe(1);
      const manifest = JSON.parse(run.stdout) as {
        status: string;
        nodes: Record<string, { errors: { code: string; message: string }[] }>;
      };
      expect(manifest.status).toBe("failed");
      expect(manifest.nodes.produce!.errors[0]!.code).toBe("RESULT_NOT_JSON");
      expect(manifest.nodes.produce!.errors[0]!.message).toMatch(/Node "produce"/);
      expect(manifest.nodes.each!.errors.map((e) => e.code)).toContain("RESULT_NOT_JSON");
      const listed = await cli(["runs", "--store", store]);
      expect(listed.stdout).toMatch(/failed/);
    },
  );

  it("a plan file with a UTF-8 byte order mark is read", async () => {
    const ws = workspace();
    writeFileSync(ws.at("bom.json"), "\uFEFF" + JSON.stringify(PLAN));
    const out = await cli(["run", ws.at("bom.json"), "--tools", ws.at("tools.mjs"), "--no-store"]);
    expect(out.code).toBe(0);
  });

  it("a plan nested thousands deep is exit 2, not a stack overflow", async () => {
    const ws = workspace();
    const n = 20_000;
    const args = `{"v": ${"[".repeat(n)}${"]".repeat(n)}}`;
    writeFileSync(
      ws.at("deep.json"),
      `{"name":"p","nodes":[{"id":"a","tool":"echo","args":${args},"store_as":"a"}]}`,
    );
    const out = await cli(["validate", ws.at("deep.json"), "--tools", ws.at("tools.mjs")]);
    expect(out.code).toBe(2);
    expect(out.stdout + out.stderr).toMatch(/nested more than/);
  });

  it("validate catches an unknown CEL function, as run would", async () => {
    const ws = workspace();
    const plan = { ...PLAN, nodes: [{ ...PLAN.nodes[0], when: "nosuch(ctx.status) == 1" }] };
    writeFileSync(ws.at("cel.json"), JSON.stringify(plan));
    const out = await cli(["validate", ws.at("cel.json"), "--tools", ws.at("tools.mjs")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/invalid_cel.*\[a\].*nosuch/);
  });

  it("a timeout beyond Node's timer limit is rejected at validation", async () => {
    const ws = workspace();
    const plan = { ...PLAN, nodes: [{ ...PLAN.nodes[0], timeout: 3_000_000 }] };
    writeFileSync(ws.at("t.json"), JSON.stringify(plan));
    const out = await cli(["validate", ws.at("t.json"), "--tools", ws.at("tools.mjs")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/timeout: must be at most 2147483 seconds/);
  });
});

describe("tools modules that never finish loading (a real CLI process)", () => {
  it("a top-level await that never settles is exit 2 with one line", async () => {
    const ws = workspace();
    writeFileSync(ws.at("hang.mjs"), "await new Promise(() => {});\nexport const tools = [];\n");
    const run = promisify(execFile)(process.execPath, [
      BIN,
      "run",
      ws.at("plan.json"),
      "--tools",
      ws.at("hang.mjs"),
      "--no-store",
    ]);
    const error = (await run.then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: number; stderr: string };
    expect(error.code).toBe(2);
    expect(error.stderr.trim().split("\n")).toHaveLength(1);
    expect(error.stderr).toMatch(/never finished loading/);
  });
});
