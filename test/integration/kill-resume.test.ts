import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/plan/index.js";

const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;
const ITEMS = 200;
const CONCURRENCY = 4;

// Each item appends one line to a side-effects file (synchronously, so a line on disk means the side effect
// happened), then waits a little so that the kill lands mid-run.
const toolsModule = `
import { appendFileSync } from "node:fs";
export const tools = [
  { name: "make_items", description: "list", input: { type: "object", properties: {} },
    run: () => ({ items: Array.from({ length: ${ITEMS} }, (_, i) => ({ n: i })) }) },
  { name: "side_effect", description: "appends a line", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: async ({ n }, ctx) => {
      appendFileSync(process.env.EFFECTS, JSON.stringify({ n, key: ctx.idempotencyKey, pid: process.pid }) + "\\n");
      await new Promise((r) => setTimeout(r, 8));
      return n * 2;
    } },
];
`;

const plan = {
  name: "kill-me",
  nodes: [
    { id: "make", tool: "make_items", store_as: "made" },
    {
      id: "each",
      tool: "side_effect",
      depends_on: ["make"],
      args: { n: "{item.n}" },
      store_as: "out_{index}",
      for_each: {
        source: "{artifacts.made}",
        select: "items[]",
        max_items: 1000,
        max_concurrency: CONCURRENCY,
      },
    },
  ],
};

function effects(path: string): { n: number; key: string; pid: number }[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { n: number; key: string; pid: number });
}

describe("a run killed with SIGKILL mid-for_each", () => {
  it("resumes without losing or repeating completed items", async () => {
    expect(existsSync(new URL("../../dist/cli/main.js", import.meta.url)), "run `npm run build` first").toBe(
      true,
    );
    const dir = mkdtempSync(join(tmpdir(), "deputy-kill-"));
    const env = { ...process.env, EFFECTS: join(dir, "effects.jsonl") };
    writeFileSync(join(dir, "tools.mjs"), toolsModule);
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    writeFileSync(env.EFFECTS, "");
    const db = join(dir, "runs.db");

    const child = spawn(
      process.execPath,
      [bin, "run", "plan.json", "--tools", "tools.mjs", "--store", db, "--json", "--lease-ttl", "1"],
      {
        cwd: dir,
        env,
        stdio: "ignore",
      },
    );
    // Kill once about a third of the items have had their side effect.
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (effects(env.EFFECTS).length >= ITEMS / 3) {
          clearInterval(timer);
          child.kill("SIGKILL");
          resolve();
        }
      }, 5);
      child.on("exit", () => {
        clearInterval(timer);
        reject(new Error("the run ended before it could be killed"));
      });
    });
    await new Promise((r) => child.once("exit", r));
    const killedPid = child.pid;

    const store = new SqliteRunStore(db);
    const [run] = await store.list();
    const before = await store.load(run!.runId);
    await store.close();
    expect(before!.run.status).toBe("running");
    const committed = new Set(
      Object.values(before!.items.each ?? {})
        .filter((i) => i.status === "ok")
        .map((i) => i.index),
    );
    expect(committed.size).toBeGreaterThan(0);
    expect(committed.size).toBeLessThan(ITEMS);
    const effectsAtKill = effects(env.EFFECTS);

    // The dead process still owns the run until its lease (1 s) lapses: --wait waits for that.
    const resumed = spawnSync(
      process.execPath,
      [bin, "resume", run!.runId, "--store", db, "--tools", "tools.mjs", "--json", "--wait"],
      {
        cwd: dir,
        env,
        encoding: "utf8",
      },
    );
    expect(resumed.status, resumed.stderr).toBe(0);
    const manifest = JSON.parse(resumed.stdout) as {
      status: string;
      nodes: { each: { items: { ok: number; reused: number } } };
      artifacts: Record<string, unknown>;
    };
    expect(manifest.status).toBe("completed");
    expect(manifest.nodes.each.items.ok).toBe(ITEMS);
    expect(manifest.nodes.each.items.reused).toBe(committed.size);
    expect(manifest.artifacts.out_199).toBe(398);

    const all = effects(env.EFFECTS);
    const seen = new Map<number, number>();
    for (const e of all) seen.set(e.n, (seen.get(e.n) ?? 0) + 1);
    // Every item's side effect is there…
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    // …no item that had been checkpointed ran again…
    for (const n of committed) expect(seen.get(n), `item ${n} was committed before the kill`).toBe(1);
    // …and the only repeats are items that were in flight at the kill: at most max_concurrency of them.
    const repeated = [...seen].filter(([, c]) => c > 1).map(([n]) => n);
    expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const n of repeated) {
      expect(effectsAtKill.some((e) => e.n === n && e.pid === killedPid)).toBe(true);
    }
    // The idempotency key is the same across the kill, so a tool can dedupe the repeats.
    for (const n of repeated) expect(new Set(all.filter((e) => e.n === n).map((e) => e.key)).size).toBe(1);
  });
});
