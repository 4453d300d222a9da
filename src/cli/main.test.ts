import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "./main.js";

const tools = `
export default [
  { name: "emit", description: "returns its value", input: { type: "object", properties: { value: {} }, required: ["value"] },
    run: ({ value }) => value },
  { name: "maybe_fail", description: "fails when asked", input: { type: "object", properties: { fail: { type: "boolean" } }, required: ["fail"] },
    run: ({ fail }) => { if (fail) throw new Error("asked to fail"); return "fine"; } },
];
`;

function workspace(plan: object) {
  const dir = mkdtempSync(join(tmpdir(), "deputy-cli-"));
  writeFileSync(join(dir, "tools.mjs"), tools);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  return { dir, plan: join(dir, "plan.json"), tools: join(dir, "tools.mjs"), store: join(dir, "runs.db") };
}

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const good = {
  name: "good",
  nodes: [
    {
      id: "a",
      tool: "emit",
      args: { value: { items: [{ fail: false }, { fail: true }, { fail: false }] } },
      store_as: "a",
    },
    {
      id: "b",
      tool: "maybe_fail",
      depends_on: ["a"],
      args: { fail: "{item.fail}" },
      store_as: "b_{index}",
      for_each: { source: "{artifacts.a}", select: "items[]" },
    },
  ],
};

describe("deputy CLI", () => {
  it("validate lists every issue and exits 2", async () => {
    const ws = workspace({
      name: "bad",
      nodes: [
        { id: "a", tool: "emitt", args: { value: 1 }, store_as: "a" },
        { id: "a", tool: "emit", args: {}, store_as: "b", depends_on: ["zz"] },
      ],
    });
    const text = await cli(["validate", ws.plan, "--tools", ws.tools]);
    expect(text.code).toBe(2);
    // On stderr, as `run` prints them.
    expect(text.stdout).toBe("");
    expect(text.stderr).toMatch(/unknown_tool\s+\[a\] unknown tool "emitt" \(did you mean "emit"\?\)/);
    expect(text.stderr).toContain("duplicate_id");
    expect(text.stderr).toContain("missing_arg");
    expect(text.stderr).toContain("unknown_dependency");
    const json = await cli(["validate", ws.plan, "--tools", ws.tools, "--json"]);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; issues: { code: string; nodeId: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.issues.map((i) => i.code)).toEqual(
      expect.arrayContaining(["unknown_tool", "duplicate_id", "missing_arg", "unknown_dependency"]),
    );
  });

  it("validate without --tools checks the structure alone and says the tools were not checked", async () => {
    const ws = workspace(good);
    const fine = await cli(["validate", ws.plan]);
    expect(fine.code).toBe(0);
    expect(fine.stdout).toBe(
      `${ws.plan}: structure valid (2 nodes); tools not checked: pass --tools MODULE (or mcp:…) to check them\n`,
    );
    expect(fine.stderr).toBe("");
    const json = await cli(["validate", ws.plan, "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, issues: [], toolsChecked: false });
    const broken = workspace({
      ...good,
      nodes: [...good.nodes, { id: "c", tool: "emit", depends_on: ["zz"], store_as: "c" }],
    });
    const bad = await cli(["validate", broken.plan]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown_dependency .*\[c\]/);
    expect(bad.stderr).not.toContain("unknown_tool");
    // With --tools, an unknown tool is an issue as before.
    const typo = workspace({
      name: "t",
      nodes: [{ id: "a", tool: "emitt", args: { value: 1 }, store_as: "a" }],
    });
    expect((await cli(["validate", typo.plan, "--tools", typo.tools])).stderr).toContain(
      'did you mean "emit"',
    );
  });

  it("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-V"]) {
      const out = await cli([flag]);
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(`${version}\n`);
    }
  });

  it("validate takes run's --no-store, keeps --json on stdout, and says which field a typo meant", async () => {
    const ws = workspace({
      name: "typo",
      nodes: [
        { id: "a", tool: "emit", args: { value: 1 }, store_as: "a" },
        { id: "b", tool: "emit", args: { value: 2 }, store_as: "b", depend_on: ["a"] },
      ],
    });
    const text = await cli(["validate", ws.plan, "--tools", ws.tools, "--no-store"]);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(
      /unknown_field\s+\[b\] unknown field "depend_on" .*\(did you mean "depends_on"\?\)/,
    );
    const json = await cli(["validate", ws.plan, "--tools", ws.tools, "--no-store", "--json"]);
    expect(json.stderr).toBe("");
    const parsed = JSON.parse(json.stdout) as { ok: boolean; issues: { message: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.issues[0]!.message).toContain('did you mean "depends_on"');
  });

  it("run prints the manifest as JSON and exits 3 for a partial run; runs lists it", async () => {
    const ws = workspace(good);
    const r = await cli(["run", ws.plan, "--tools", ws.tools, "--store", ws.store, "--json"]);
    expect(r.code).toBe(3);
    const m = JSON.parse(r.stdout) as {
      runId: string;
      status: string;
      nodes: Record<
        string,
        { status: string; items: { ok: number; error: number }; errors: { item: number }[] }
      >;
      artifacts: Record<string, unknown>;
    };
    expect(m.status).toBe("partial");
    expect(m.nodes.b!.items).toMatchObject({ ok: 2, error: 1 });
    expect(m.nodes.b!.errors[0]!.item).toBe(1);
    expect(m.artifacts.b_2).toBe("fine");
    const list = await cli(["runs", "--store", ws.store]);
    expect(list.stdout).toContain(m.runId);
    const one = await cli(["runs", m.runId, "--store", ws.store, "--json"]);
    expect(JSON.parse(one.stdout)).toMatchObject({ runId: m.runId, status: "partial" });
  });

  it("exits 0 when completed and 1 when failed, with one-line errors", async () => {
    const ok = workspace({
      name: "ok",
      nodes: [{ id: "a", tool: "emit", args: { value: 1 }, store_as: "a" }],
    });
    expect((await cli(["run", ok.plan, "--tools", ok.tools, "--no-store"])).code).toBe(0);
    const bad = workspace({
      name: "bad",
      nodes: [{ id: "a", tool: "maybe_fail", args: { fail: true }, store_as: "a" }],
    });
    const r = await cli(["run", bad.plan, "--tools", bad.tools, "--store", bad.store]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("asked to fail");
    expect(r.stdout).toContain("deputy resume");
    const missing = await cli(["run", join(ok.dir, "nope.json"), "--tools", ok.tools]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("Plan file not found");
  });

  it("run prints the artifact the plan returns, clipped when long; --json names it", async () => {
    const ws = workspace({
      name: "answers",
      returns: "answer",
      nodes: [
        { id: "a", tool: "emit", args: { value: { ok: true, n: 2 } }, store_as: "answer" },
        { id: "b", tool: "emit", args: { value: "x".repeat(1000) }, store_as: "long" },
      ],
    });
    const text = await cli(["run", ws.plan, "--tools", ws.tools, "--no-store"]);
    expect(text.stdout).toContain('  returns answer: {"ok":true,"n":2}\n');
    const json = await cli(["run", ws.plan, "--tools", ws.tools, "--no-store", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      returns: "answer",
      artifacts: { answer: { ok: true, n: 2 } },
    });
    writeFileSync(ws.plan, JSON.stringify({ ...JSON.parse(readFileSync(ws.plan, "utf8")), returns: "long" }));
    const long = await cli(["run", ws.plan, "--tools", ws.tools, "--no-store"]);
    const line = long.stdout.split("\n").find((l) => l.startsWith("  returns long: "))!;
    expect(line).toMatch(/… \(602 more characters; --json for all\)$/);
    writeFileSync(
      join(ws.dir, "plain.json"),
      JSON.stringify({
        name: "plain",
        nodes: [{ id: "a", tool: "emit", args: { value: 1 }, store_as: "a" }],
      }),
    );
    const plain = await cli(["run", join(ws.dir, "plain.json"), "--tools", ws.tools, "--no-store"]);
    expect(plain.stdout).not.toContain("returns");
  });

  it("resume refuses a plan file that changed since the run started", async () => {
    const ws = workspace(good);
    const r = await cli(["run", ws.plan, "--tools", ws.tools, "--store", ws.store, "--json"]);
    const { runId } = JSON.parse(r.stdout) as { runId: string };
    writeFileSync(ws.plan, JSON.stringify({ ...good, objective: "edited" }));
    const resumed = await cli(["resume", runId, "--store", ws.store, "--tools", ws.tools]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("The plan changed since run");
    const unknown = await cli(["resume", "no-such-run", "--store", ws.store]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No run "no-such-run"');
  });
});

describe("deputy run with agents from the tools module", () => {
  it("registers the module's `agents` export for agent nodes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-cli-agents-"));
    const agents = new URL("../../dist/agents/index.js", import.meta.url).href;
    writeFileSync(
      join(dir, "tools.mjs"),
      `import { defineAgent, mockModel } from ${JSON.stringify(agents)};
export const tools = [];
export const agents = {
  echo: defineAgent({ name: "Echo", backend: mockModel({ replies: ["pong"] }), actions: { reply: ({ q }) => q } }),
};`,
    );
    writeFileSync(
      join(dir, "plan.json"),
      JSON.stringify({
        name: "agentic",
        nodes: [
          {
            id: "ask",
            type: "agent",
            agent: "echo",
            action: "reply",
            input: { q: "ping" },
            store_as: "answer",
          },
        ],
      }),
    );
    const r = await cli([
      "run",
      join(dir, "plan.json"),
      "--tools",
      join(dir, "tools.mjs"),
      "--no-store",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout) as {
      artifacts: { answer: string };
      nodes: { ask: { spend: { tokens: number } } };
    };
    expect(m.artifacts.answer).toBe("pong");
    expect(m.nodes.ask.spend.tokens).toBeGreaterThan(0);
  });
});

describe("deputy run with node types from the tools module", () => {
  it("registers the module's `nodeTypes` export beside the built-in types", async () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-cli-node-types-"));
    const root = new URL("../../dist/index.js", import.meta.url).href;
    writeFileSync(
      join(dir, "tools.mjs"),
      `import { defineNodeType } from ${JSON.stringify(root)};
export const tools = [];
export const nodeTypes = [
  defineNodeType({ name: "constant", fields: {}, executor: { execute: async () => ({ status: "ok", value: 42 }) } }),
];`,
    );
    writeFileSync(
      join(dir, "plan.json"),
      JSON.stringify({ name: "own-type", nodes: [{ id: "c", type: "constant", store_as: "answer" }] }),
    );
    const r = await cli([
      "run",
      join(dir, "plan.json"),
      "--tools",
      join(dir, "tools.mjs"),
      "--no-store",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout) as { artifacts: { answer: number }; nodes: { c: { type: string } } };
    expect(m.artifacts.answer).toBe(42);
    expect(m.nodes.c.type).toBe("constant");
  });
});
