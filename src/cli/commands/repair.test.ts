/** `deputy repair` on a scripted model: refusals (exit 2, nothing changed), a refused delta, pending → approve, --yes, reject, lineage in `deputy runs`. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { main } from "../main.js";

// Each call is appended to CALLS, so a test sees exactly what ran.
const tools = `
import { appendFileSync } from "node:fs";
const log = (name) => appendFileSync(process.env.DEPUTY_TEST_CALLS, name + "\\n");
export default [
  { name: "list_items", description: "List items", delegateSafe: true, input: { type: "object" },
    run: () => { log("list"); return ["a", "b"]; } },
  { name: "fetch_v1", description: "Fetch (retired)", delegateSafe: true,
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => { log("fetch_v1"); throw new Error("fetch_v1 is retired"); } },
  { name: "fetch_v2", description: "Fetch", delegateSafe: true,
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }) => { log("fetch_v2"); return "page of " + url; } },
  { name: "wipe", description: "Delete everything", input: { type: "object" },
    run: () => { throw new Error("must never run"); } },
];
`;

const plan = {
  name: "fetch",
  nodes: [
    { id: "list", tool: "list_items", store_as: "listed" },
    { id: "fetch", tool: "fetch_v1", depends_on: ["list"], args: { url: "http://x" }, store_as: "page" },
  ],
};
const fixed = { ...plan.nodes[1], tool: "fetch_v2" };

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

describe("deputy repair", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-repair-cli-"));
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const toolsPath = file("tools.mjs", tools);
  const planPath = file("plan.json", JSON.stringify(plan));
  const callsPath = join(dir, "calls.txt");
  process.env.DEPUTY_TEST_CALLS = callsPath;
  const calls = () => readFileSync(callsPath, "utf8").split("\n").filter(Boolean);
  const script = (name: string, answers: unknown[]) =>
    `scripted=${file(name, answers.map((a) => JSON.stringify(a)).join("\n") + "\n")}`;
  let n = 0;
  async function failedRun() {
    const store = join(dir, `runs-${++n}.db`);
    const r = await cli(["run", planPath, "--tools", toolsPath, "--store", store, "--json"]);
    expect(r.code).toBe(1);
    writeFileSync(callsPath, "");
    return { store, runId: JSON.parse(r.stdout).runId as string };
  }
  async function stored(store: string, runId: string) {
    const s = new SqliteRunStore(store);
    try {
      return await s.load(runId);
    } finally {
      await s.close();
    }
  }

  it("keeps a valid delta pending (diff on stdout), then --approve runs the child: only the replaced node runs", async () => {
    const { store, runId } = await failedRun();
    const r = await cli([
      "repair",
      runId,
      "--model",
      script("ok.jsonl", [{ nodes: [fixed] }]),
      "--store",
      store,
      "--tools",
      toolsPath,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('~ fetch\n    tool: "fetch_v1" → "fetch_v2"\n');
    expect(r.stderr).toContain(
      `kept as pending repair r1 of run ${runId}; apply it with: deputy repair ${runId} --approve`,
    );
    expect(calls()).toEqual([]);
    const approved = await cli([
      "repair",
      runId,
      "--approve",
      "--by",
      "ana",
      "--store",
      store,
      "--json",
      "--tools",
      toolsPath,
    ]);
    expect(approved.code).toBe(0);
    const manifest = JSON.parse(approved.stdout);
    expect(manifest.status).toBe("completed");
    expect(calls()).toEqual(["fetch_v2"]); // `list` completed in the parent
    const child = (await stored(store, manifest.runId))!;
    expect(child.run).toMatchObject({ parentRunId: runId, rootRunId: runId });
    expect(child.artifacts.page).toBe("page of http://x");
    const runs = await cli(["runs", "--store", store]);
    expect(runs.stdout).toContain(`${manifest.runId}  completed`);
    expect(runs.stdout).toContain(`← repair of ${runId}`);
    expect(runs.stdout).toContain(`→ ${manifest.runId}`);
    const shown = await cli(["runs", runId, "--store", store]);
    expect(shown.stdout).toContain(`repair r1 (round 1): applied → run ${manifest.runId}`);
    // The child says where it came from: its parent, the repair and the nodes its delta replaced.
    const childShown = await cli(["runs", manifest.runId, "--store", store]);
    expect(childShown.stdout).toContain(`repair of run ${runId}\n  by repair r1 from `);
    expect(childShown.stdout).toMatch(/: replaced fetch \(\d+ changes?; --json lists them\)/);
    const childJson = JSON.parse((await cli(["runs", manifest.runId, "--store", store, "--json"])).stdout);
    expect(childJson.lineage).toMatchObject({
      parentRunId: runId,
      madeBy: { id: "r1", status: "applied", nodes: ["fetch"] },
    });
    expect(childJson.lineage.madeBy.diff).toEqual(
      expect.arrayContaining([expect.objectContaining({ nodeId: "fetch" })]),
    );
    const again = await cli(["repair", runId, "--approve", "--store", store, "--tools", toolsPath]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already applied as run .*\[ALREADY_REPAIRED\]\n$/);
  });

  it("--yes applies a valid delta at once", async () => {
    const { store, runId } = await failedRun();
    const r = await cli([
      "repair",
      runId,
      "--yes",
      "--model",
      script("yes.jsonl", [{ nodes: [fixed] }]),
      "--tools",
      toolsPath,
      "--store",
      store,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("completed");
    expect(r.stderr).toMatch(/applied repair r1 as run \S+ \(child of /);
    expect(calls()).toEqual(["fetch_v2"]);
  });

  it("refuses with one line and exit 2, changing nothing", async () => {
    const { store, runId } = await failedRun();
    const before = await stored(store, runId);
    const model = script("unused.jsonl", [{ nodes: [fixed] }]);
    const done = await cli([
      "run",
      file("ok.json", JSON.stringify({ name: "ok", nodes: [plan.nodes[0]] })),
      "--tools",
      toolsPath,
      "--store",
      store,
      "--json",
    ]);
    const doneId = JSON.parse(done.stdout).runId as string;
    const cases: [string[], string][] = [
      [["repair", runId, "--store", store, "--tools", toolsPath], "NO_MODEL"],
      [["repair", doneId, "--model", model, "--store", store, "--tools", toolsPath], "RUN_NOT_REPAIRABLE"],
      [
        ["repair", runId, "--model", model, "--store", store, "--max-rounds", "0", "--tools", toolsPath],
        "ROUNDS_USED_UP",
      ],
      [["repair", runId, "--approve", "--store", store, "--tools", toolsPath], "NO_PENDING_REPAIR"],
      [["repair", runId, "--reject", "--store", store, "--tools", toolsPath], "NO_PENDING_REPAIR"],
      [["repair", "nope", "--model", model, "--store", store, "--tools", toolsPath], "RUN_NOT_FOUND"],
    ];
    for (const [args, code] of cases) {
      const r = await cli(args);
      expect(r.code, code).toBe(2);
      expect(r.stderr, code).toMatch(new RegExp(`^deputy: [^\\n]*\\[${code}\\]\\n$`));
    }
    expect(await stored(store, runId)).toEqual(before);
  });

  it("a delta still refused after the correction: one line per issue, exit 2, the run unchanged but the round spent", async () => {
    const { store, runId } = await failedRun();
    const hostile = { nodes: [{ ...fixed, tool: "wipe", args: {}, store_as: "elsewhere" }] };
    const r = await cli([
      "repair",
      runId,
      "--model",
      script("bad.jsonl", ["not JSON at all", hostile, { nodes: [fixed] }]),
      "--tools",
      toolsPath,
      "--allow-tool",
      "list_items",
      "--allow-tool",
      "fetch_v1",
      "--allow-tool",
      "fetch_v2",
      "--store",
      store,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed_store_as +\[fetch\]/);
    expect(r.stderr).toMatch(/tool_not_allowed +\[fetch\]/);
    expect(r.stderr).toContain("still refused after one correction (2 calls");
    const after = (await stored(store, runId))!;
    expect(after.run.status).toBe("failed");
    expect(after.run.repairs).toMatchObject([{ id: "r1", status: "invalid" }]);
    expect(calls()).toEqual([]);
  });

  it("--reject keeps the repair as rejected; another round may then be asked", async () => {
    const { store, runId } = await failedRun();
    await cli([
      "repair",
      runId,
      "--model",
      script("r1.jsonl", [{ nodes: [fixed] }]),
      "--store",
      store,
      "--tools",
      toolsPath,
    ]);
    const r = await cli([
      "repair",
      runId,
      "--reject",
      "--reason",
      "not that one",
      "--by",
      "ana",
      "--store",
      store,
      "--tools",
      toolsPath,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Rejected repair r1 of run ${runId}.\n`);
    const second = await cli([
      "repair",
      runId,
      "--model",
      script("r2.jsonl", [{ nodes: [fixed] }]),
      "--store",
      store,
      "--json",
      "--tools",
      toolsPath,
    ]);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: "pending", repair: { id: "r2", round: 2 } });
    const third = await cli([
      "repair",
      runId,
      "--model",
      script("r3.jsonl", [{ nodes: [fixed] }]),
      "--store",
      store,
      "--tools",
      toolsPath,
    ]);
    expect(third.code).toBe(2);
    expect(third.stderr).toContain("[REPAIR_PENDING]");
  });
});
