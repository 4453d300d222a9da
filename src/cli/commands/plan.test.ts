/** `deputy plan` on a scripted model: written, corrected, refused (exit 2, nothing written or run), and run. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { main } from "../main.js";

const tools = `
export default [
  { name: "fetch_alerts", description: "List open alerts", delegateSafe: true,
    input: { type: "object", properties: { queue: { type: "string" } }, required: ["queue"] },
    run: ({ queue }) => [{ id: "a1", queue }] },
  { name: "file_ticket", description: "File a ticket",
    input: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    run: ({ summary }) => ({ filed: summary }) },
  { name: "wipe_database", description: "Delete everything", input: { type: "object" },
    run: () => { throw new Error("must never run"); } },
];
`;

const good = {
  name: "alerts-to-ticket",
  nodes: [
    { id: "alerts", tool: "fetch_alerts", args: { queue: "ops" }, store_as: "alerts" },
    {
      id: "ticket",
      tool: "file_ticket",
      depends_on: ["alerts"],
      args: { summary: "Alerts: {artifacts.alerts}" },
      store_as: "ticket",
    },
  ],
};
const missingArgs = { ...good, nodes: [{ ...good.nodes[0], args: {} }, good.nodes[1]] };
const wipe = { name: "wipe", nodes: [{ id: "w", tool: "wipe_database", args: {}, store_as: "w" }] };

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy plan", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-plan-"));
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const toolsPath = file("tools.mjs", tools);
  const script = (name: string, answers: unknown[]) =>
    `scripted=${file(name, answers.map((a) => JSON.stringify(a)).join("\n") + "\n")}`;
  const base = (model: string) => [
    "plan",
    "--objective",
    "File a ticket about ops alerts",
    "--tools",
    toolsPath,
    "--model",
    model,
  ];

  it("prints a plan the model got right the first time", async () => {
    const r = await cli(base(script("good.jsonl", [good])));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "alerts-to-ticket",
      objective: "File a ticket about ops alerts",
    });
    expect(r.stderr).toMatch(/plan "alerts-to-ticket" \(2 nodes\) is valid \(1 call, \d+ tokens\)/);
  });

  it("writes the corrected plan after one correction round (--out, --json)", async () => {
    const out = join(dir, "corrected.json");
    const r = await cli([...base(script("fix.jsonl", [missingArgs, good])), "--out", out, "--json"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.status).toBe("ok");
    expect(json.usage.calls).toBe(2);
    expect(JSON.parse(readFileSync(out, "utf8")).nodes[0].args).toEqual({ queue: "ops" });
  });

  it("refuses a plan still invalid after the correction: one line per issue, exit 2, nothing written or run", async () => {
    const out = join(dir, "never.json");
    const db = join(dir, "refused.db");
    const r = await cli([
      ...base(script("bad.jsonl", [missingArgs, "not json"])),
      "--out",
      out,
      "--run",
      "--store",
      db,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not_json/);
    expect(r.stderr).toMatch(/nothing was written or run/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(db)).toBe(false);
  });

  it("keeps the allowlist: a tool left out with --allow-tool is an unknown tool, and never runs", async () => {
    const db = join(dir, "allow.db");
    const r = await cli([
      ...base(script("wipe.jsonl", [wipe, wipe])),
      "--allow-tool",
      "fetch_alerts",
      "--allow-tool",
      "file_ticket",
      "--run",
      "--store",
      db,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown_tool\s+\[w\] unknown tool "wipe_database"/);
    expect(r.stderr.trim().split("\n")).toHaveLength(2); // one issue line, one summary line
    expect(existsSync(db)).toBe(false);
  });

  it("writes a plan that takes --input values as its inputs, and runs it with them", async () => {
    const db = join(dir, "inputs.db");
    const reads = {
      ...good,
      nodes: [{ ...good.nodes[0], args: { queue: "{inputs.queue}" } }, good.nodes[1]],
    };
    const r = await cli([
      ...base(script("inputs.jsonl", [reads])),
      "--input",
      "queue=ops",
      "--run",
      "--yes", // file_ticket has side effects: approved here (issue 38)
      "--store",
      db,
      "--json",
    ]);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(r.stdout);
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.alerts).toEqual([{ id: "a1", queue: "ops" }]);
    const store = new SqliteRunStore(db);
    try {
      const stored = await store.load(manifest.runId);
      expect(stored?.run.options.inputs).toEqual({ queue: "ops" });
      // The plan declares what it takes (the caller's keys, typed as the values are), so it runs again with others.
      expect((stored?.run.plan as { inputs: unknown }).inputs).toEqual({
        type: "object",
        properties: { queue: { type: "string" } },
        required: ["queue"],
        additionalProperties: false,
      });
    } finally {
      await store.close();
    }
  });

  it("refuses --input with --inputs, and a malformed --input, before asking the model (exit 2, nothing created)", async () => {
    const db = join(dir, "never-inputs.db");
    const model = script("unused.jsonl", [good]);
    for (const flags of [
      ["--input", "queue=ops", "--inputs", '{"queue":"ops"}'],
      ["--input", "noequals"],
      ["--inputs", "[1]"],
    ]) {
      const r = await cli([...base(model), ...flags, "--run", "--store", db]);
      expect(r.code, flags.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n"), flags.join(" ")).toHaveLength(1);
    }
    expect(existsSync(db)).toBe(false);
  });

  it("runs the plan with --run and records the plan, the objective and the model with the run", async () => {
    const db = join(dir, "runs.db");
    const model = script("run.jsonl", [good]);
    const r = await cli([...base(model), "--run", "--yes", "--by", "ada", "--store", db, "--json"]);
    // What was approved is shown first (file_ticket has side effects: issue 38), and nothing else.
    expect(r.stderr).toMatch(/^The model's plan calls tools with side effects/);
    expect(r.stderr).toContain('node "ticket": "file_ticket"');
    expect(r.code).toBe(0);
    const manifest = JSON.parse(r.stdout);
    expect(manifest.status).toBe("completed");
    const store = new SqliteRunStore(db);
    try {
      const stored = await store.load(manifest.runId);
      expect(stored?.run.plan).toMatchObject({ name: "alerts-to-ticket" });
      expect(stored?.run.options.authored).toEqual({
        objective: "File a ticket about ops alerts",
        model, // the spec, the file's path absolute (it already is here)
        allowedTools: ["fetch_alerts", "file_ticket", "wipe_database"], // no --allow-tool: all of --tools
        // Who approved its calls of tools with side effects, and how (issue 38).
        approval: {
          status: "approved",
          tools: ["file_ticket"],
          how: "flag",
          by: "ada",
          at: expect.any(String),
        },
      });
      expect(stored?.artifacts.ticket).toEqual({
        filed: `Alerts: ${JSON.stringify([{ id: "a1", queue: "ops" }])}`,
      });
    } finally {
      await store.close();
    }
    // `deputy runs RUN` says what the run was written for, and by which model.
    const shown = await cli(["runs", manifest.runId, "--store", db]);
    expect(shown.stdout).toContain(`written by ${model} for: File a ticket about ops alerts\n`);
    const json = JSON.parse((await cli(["runs", manifest.runId, "--store", db, "--json"])).stdout);
    expect(json.authored).toEqual({ objective: "File a ticket about ops alerts", model });
  });

  it("refuses a model spec it does not know, and a tools module it needs", async () => {
    expect((await cli(base("gpt=whatever"))).code).toBe(2);
    expect((await cli(base(`scripted=${join(dir, "missing.jsonl")}`))).code).toBe(2);
    expect((await cli(["plan", "--objective", "x", "--model", "scripted=x"])).code).toBe(2);
  });
});
