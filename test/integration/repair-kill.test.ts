import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/plan/index.js";

const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;
const ITEMS = 160;
const FAILS_AT = 40;
const CONCURRENCY = 4;

// Every tool call appends one line to a side-effects file (synchronously, so a line on disk means the side
// effect happened). `side_v1` breaks at item FAILS_AT; `side_v2`, its working twin, waits a little so that the
// kill lands in the middle of the repaired child run.
const toolsModule = `
import { appendFileSync } from "node:fs";
const log = (e) => appendFileSync(process.env.EFFECTS, JSON.stringify({ ...e, pid: process.pid }) + "\\n");
const n = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
export const tools = [
  { name: "make_items", description: "list", input: { type: "object", properties: {} },
    run: () => { log({ tool: "make" }); return { items: Array.from({ length: ${ITEMS} }, (_, i) => ({ n: i })) }; } },
  { name: "prep", description: "an independent step", input: { type: "object", properties: {} },
    run: () => { log({ tool: "prep" }); return "ready"; } },
  { name: "side_v1", description: "the old side effect", input: n,
    run: ({ n }) => { log({ tool: "v1", n }); if (n >= ${FAILS_AT}) throw new Error("v1 cannot do " + n); return n; } },
  { name: "side_v2", description: "the side effect", input: n,
    run: async ({ n }) => { log({ tool: "v2", n }); await new Promise((r) => setTimeout(r, 10)); return n * 2; } },
  { name: "finish", description: "after all items", input: { type: "object", properties: {} },
    run: () => { log({ tool: "finish" }); return "done"; } },
];
`;

const each = {
  id: "each",
  tool: "side_v1",
  depends_on: ["make"],
  args: { n: "{item.n}" },
  store_as: "out_{index}",
  for_each: {
    source: "{artifacts.made}",
    select: "items[]",
    max_concurrency: CONCURRENCY,
    on_item_error: "fail",
  },
};
const plan = {
  name: "repair-kill",
  nodes: [
    { id: "make", tool: "make_items", store_as: "made" },
    { id: "prep", tool: "prep", store_as: "prepared" },
    each,
    { id: "after", tool: "finish", depends_on: ["each", "prep"], store_as: "finished" },
  ],
};

type Effect = { tool: string; n?: number; pid: number };
function effects(path: string): Effect[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Effect);
}

describe("a repaired child run killed with SIGKILL", () => {
  it("resumes without running any completed node or item of the parent or the child twice", async () => {
    expect(existsSync(new URL("../../dist/cli/main.js", import.meta.url)), "run `npm run build` first").toBe(
      true,
    );
    const dir = mkdtempSync(join(tmpdir(), "deputy-repair-kill-"));
    const env = { ...process.env, EFFECTS: join(dir, "effects.jsonl") };
    writeFileSync(join(dir, "tools.mjs"), toolsModule);
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    writeFileSync(join(dir, "model.jsonl"), JSON.stringify({ nodes: [{ ...each, tool: "side_v2" }] }) + "\n");
    writeFileSync(env.EFFECTS, "");
    const db = join(dir, "runs.db");
    const deputy = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: dir, env, encoding: "utf8" });

    const failed = deputy(["run", "plan.json", "--tools", "tools.mjs", "--store", db, "--json"]);
    expect(failed.status, failed.stderr).toBe(1);
    const parentId = (JSON.parse(failed.stdout) as { runId: string }).runId;
    const parentEffects = effects(env.EFFECTS);
    const parentOk = new Set(
      parentEffects.filter((e) => e.tool === "v1" && e.n! < FAILS_AT).map((e) => e.n!),
    );
    expect(parentOk.size).toBeGreaterThan(0);

    const child = spawn(
      process.execPath,
      [
        bin,
        ...["repair", parentId, "--yes", "--model", "scripted=model.jsonl", "--tools", "tools.mjs"],
        ...["--store", db, "--lease-ttl", "1", "--json"],
      ],
      { cwd: dir, env, stdio: "ignore" },
    );
    // Kill once the child run has had about a third of its items' side effects.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (effects(env.EFFECTS).filter((e) => e.tool === "v2").length >= (ITEMS - parentOk.size) / 3) {
          clearInterval(timer);
          child.kill("SIGKILL");
          resolve();
        }
      }, 5);
      child.on("exit", () => {
        clearInterval(timer);
        reject(new Error("the repaired run ended before it could be killed"));
      });
    });
    await new Promise((r) => child.once("exit", r));
    const killedPid = child.pid;
    const effectsAtKill = effects(env.EFFECTS);

    const store = new SqliteRunStore(db);
    const childRun = (await store.list()).find((r) => r.parentRunId === parentId);
    expect(childRun, "the child run exists").toBeDefined();
    const atKill = (await store.load(childRun!.runId))!;
    await store.close();
    expect(atKill.run).toMatchObject({ status: "running", rootRunId: parentId });
    const committedInChild = Object.values(atKill.items.each ?? {})
      .filter((i) => i.status === "ok" && !parentOk.has(i.index))
      .map((i) => i.index);
    expect(committedInChild.length).toBeGreaterThan(0);

    // The dead process still owns the child until its lease (1 s) lapses: --wait waits for that.
    const resumed = deputy([
      "resume",
      childRun!.runId,
      "--store",
      db,
      "--tools",
      "tools.mjs",
      "--json",
      "--wait",
    ]);
    expect(resumed.status, resumed.stderr).toBe(0);
    const manifest = JSON.parse(resumed.stdout) as {
      status: string;
      nodes: { each: { items: { ok: number; reused: number } } };
      artifacts: Record<string, unknown>;
    };
    expect(manifest.status).toBe("completed");
    expect(manifest.nodes.each.items.ok).toBe(ITEMS);
    expect(manifest.nodes.each.items.reused).toBe(parentOk.size + committedInChild.length);
    expect(manifest.artifacts.finished).toBe("done");

    const all = effects(env.EFFECTS);
    const count = (tool: string) => all.filter((e) => e.tool === tool).length;
    // The parent's completed nodes ran once, in the parent, and never in the child…
    expect(count("make")).toBe(1);
    expect(count("prep")).toBe(1);
    expect(count("finish")).toBe(1);
    const v2 = new Map<number, number>();
    for (const e of all) if (e.tool === "v2") v2.set(e.n!, (v2.get(e.n!) ?? 0) + 1);
    // …no item the parent completed ran again, every other item ran with the repaired tool…
    for (const n of parentOk) expect(v2.has(n), `item ${n} completed in the parent`).toBe(false);
    expect(v2.size).toBe(ITEMS - parentOk.size);
    // …no item the child had checkpointed ran again…
    for (const n of committedInChild) expect(v2.get(n), `item ${n} was committed before the kill`).toBe(1);
    // …and the only repeats are items in flight at the kill: at most max_concurrency of them.
    const repeated = [...v2].filter(([, c]) => c > 1).map(([n]) => n);
    expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const n of repeated)
      expect(effectsAtKill.some((e) => e.tool === "v2" && e.n === n && e.pid === killedPid)).toBe(true);
  });
});
