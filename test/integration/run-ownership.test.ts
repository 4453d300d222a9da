import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/plan/index.js";

// Real processes against one SQLite store: the lease in the store decides who owns a run.
const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;
const ITEMS = 120;
// Long enough that a CLI process started under load still finds the dead owner's lease held.
const LEASE_S = 5;

const toolsModule = `
import { appendFileSync } from "node:fs";
export const tools = [
  { name: "make_items", description: "list", input: { type: "object", properties: {} },
    run: () => ({ items: Array.from({ length: ${ITEMS} }, (_, i) => ({ n: i })) }) },
  { name: "side_effect", description: "appends a line", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: async ({ n }, ctx) => {
      appendFileSync(process.env.EFFECTS, JSON.stringify({ n, key: ctx.idempotencyKey, pid: process.pid, at: Date.now() }) + "\\n");
      await new Promise((r) => setTimeout(r, Number(process.env.SLEEP_MS)));
      return n;
    } },
];
`;

const plan = {
  name: "owned",
  nodes: [
    { id: "make", tool: "make_items", store_as: "made" },
    {
      id: "each",
      tool: "side_effect",
      depends_on: ["make"],
      args: { n: "{item.n}" },
      store_as: "out_{index}",
      for_each: { source: "{artifacts.made}", select: "items[]", max_concurrency: 2 },
    },
  ],
};

interface Effect {
  n: number;
  key: string;
  pid: number;
  at: number;
}

function setup(sleepMs = 15) {
  const dir = mkdtempSync(join(tmpdir(), "deputy-own-"));
  const env = { ...process.env, EFFECTS: join(dir, "effects.jsonl"), SLEEP_MS: String(sleepMs) };
  writeFileSync(join(dir, "tools.mjs"), toolsModule);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  writeFileSync(env.EFFECTS, "");
  const effects = () =>
    readFileSync(env.EFFECTS, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Effect);
  const deputy = (...args: string[]) =>
    spawn(
      process.execPath,
      [
        bin,
        ...args,
        "--store",
        join(dir, "runs.db"),
        ...(args.includes("--lease-ttl") ? [] : ["--lease-ttl", String(LEASE_S)]),
      ],
      {
        cwd: dir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  return { dir, effects, deputy, db: join(dir, "runs.db") };
}

function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

async function until(check: () => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function runId(db: string): Promise<string> {
  const store = new SqliteRunStore(db);
  const [run] = await store.list();
  await store.close();
  return run!.runId;
}

/** Starts a run, kills it with SIGKILL a third of the way in, and returns the run id. */
async function killedRun(s: ReturnType<typeof setup>, ...flags: string[]) {
  const child = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--json", ...flags);
  const exited = finished(child);
  await until(() => s.effects().length >= ITEMS / 3, "a third of the items");
  child.kill("SIGKILL");
  await exited;
  return { id: await runId(s.db), killedAt: Date.now(), pid: child.pid! };
}

/**
 * Makes the dead owner's lease look like another host's, as after a kill -9 of a process elsewhere: this host
 * cannot tell whether that process lives, so its lease must lapse.
 */
function ownedElsewhere(db: string, runId: string) {
  const sql = new DatabaseSync(db);
  sql.prepare("UPDATE runs SET lease_owner = ? WHERE run_id = ?").run(`not-${hostname()}:4242:a1b2c3`, runId);
  sql.close();
}

function counts(effects: Effect[]) {
  const seen = new Map<number, number>();
  for (const e of effects) seen.set(e.n, (seen.get(e.n) ?? 0) + 1);
  return seen;
}

describe("one process owns a run", () => {
  it("refuses a resume while the run's own process is alive, with exit 5 and one line", async () => {
    const s = setup(120);
    const original = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--json");
    const done = finished(original);
    await until(() => s.effects().length >= 5, "the run to start");
    const second = await finished(s.deputy("resume", await runId(s.db), "--tools", "tools.mjs", "--json"));
    expect(second.code).toBe(5);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toMatch(/is owned by .*--wait/);
    const first = await done;
    expect(first.code, first.stderr).toBe(0);
    expect([...counts(s.effects()).values()].every((c) => c === 1)).toBe(true);
    expect(new Set(s.effects().map((e) => e.pid))).toEqual(new Set([original.pid]));
  });

  it("after a kill -9 on this host, a resume takes the run over at once; of two resumes exactly one runs", async () => {
    const s = setup(100);
    // A lease long enough that a take-over after its lapse could not pass for one at once.
    const killed = await killedRun(s, "--lease-ttl", "60");
    const atKill = s.effects();
    const [a, b] = await Promise.all([
      finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--json", "--lease-ttl", "60")),
      finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--json", "--lease-ttl", "60")),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 5]);
    const loser = a.code === 5 ? a : b;
    expect(loser.stderr.trim().split("\n")).toHaveLength(1);
    expect(loser.stderr).not.toContain(`:${killed.pid}:`);
    const resumed = s.effects().slice(atKill.length);
    expect(new Set(resumed.map((e) => e.pid)).size).toBe(1);
    // Well before the dead owner's 60 s lease could have lapsed (40 s after its last heartbeat at the least).
    expect(resumed[0]!.at - killed.killedAt).toBeLessThan(30_000);
    expect(counts(s.effects()).size).toBe(ITEMS);
  });

  it("after a kill -9 elsewhere, refuses until the lease lapses; then of two resumes at once exactly one runs", async () => {
    // Items slow enough (80 left × 100 ms / 2 ≈ 4 s) that the second resume, started under load, still finds the
    // first one running rather than a finished run.
    const s = setup(100);
    const killed = await killedRun(s);
    const atKill = s.effects();
    ownedElsewhere(s.db, killed.id);
    // Still owned by the dead process: its lease has not lapsed yet.
    const early = await finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--json"));
    expect(early.code).toBe(5);
    await new Promise((r) => setTimeout(r, LEASE_S * 1000 - (Date.now() - killed.killedAt) + 300));

    const [a, b] = await Promise.all([
      finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--json")),
      finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--json")),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 5]);
    const winner = a.code === 0 ? a : b;
    expect(JSON.parse(winner.stdout)).toMatchObject({
      status: "completed",
      nodes: { each: { items: { ok: ITEMS } } },
    });

    const seen = counts(s.effects());
    expect(seen.size).toBe(ITEMS);
    // Only items in flight at the kill ran twice (max_concurrency 2), never three times.
    const repeated = [...seen].filter(([, c]) => c > 1);
    expect(repeated.length).toBeLessThanOrEqual(2);
    for (const [n, c] of repeated) {
      expect(c).toBe(2);
      expect(atKill.some((e) => e.n === n && e.pid === killed.pid)).toBe(true);
    }
    // The resumes' side effects all come from one process.
    expect(
      new Set(
        s
          .effects()
          .slice(atKill.length)
          .map((e) => e.pid),
      ).size,
    ).toBe(1);
  });

  it("with --wait, a resume waits for another host's dead owner's lease to lapse, then completes the run", async () => {
    const s = setup();
    const killed = await killedRun(s);
    ownedElsewhere(s.db, killed.id);
    const waited = await finished(s.deputy("resume", killed.id, "--tools", "tools.mjs", "--wait", "--json"));
    expect(waited.code, waited.stderr).toBe(0);
    expect(Date.now() - killed.killedAt).toBeGreaterThanOrEqual(LEASE_S * 1000 - 200);
    expect(JSON.parse(waited.stdout).status).toBe("completed");
    expect(counts(s.effects()).size).toBe(ITEMS);
  });
});
