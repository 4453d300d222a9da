import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { PostgresRunStore } from "../../src/plan/index.js";
import { ResumeRunner } from "../../src/ui/server/resume-runner.js";
import { RunToolLoader } from "../../src/ui/server/run-tool-loader.js";
import { freshDatabase } from "../postgres-database.js";

// Real `deputy worker` and `deputy run --distributed` processes against a real PostgreSQL server.
const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;
const serverUrl = inject("pgUrl");

const toolsModule = `
import { appendFileSync } from "node:fs";
export const tools = [
  { name: "make_items", description: "list", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: ({ n }) => ({ items: Array.from({ length: n }, (_, i) => ({ n: i })) }) },
  { name: "side_effect", description: "appends a line", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: async ({ n }, ctx) => {
      appendFileSync(process.env.EFFECTS, JSON.stringify({ n, key: ctx.idempotencyKey, pid: process.pid, t: Date.now() }) + "\\n");
      await new Promise((r) => setTimeout(r, Number(process.env.SLEEP_MS)));
      return n * 2;
    } },
];
`;

function plan(items: number, concurrency: number) {
  return {
    name: "spread",
    nodes: [
      { id: "make", tool: "make_items", args: { n: items }, store_as: "made" },
      {
        id: "each",
        tool: "side_effect",
        depends_on: ["make"],
        args: { n: "{item.n}" },
        store_as: "out_{index}",
        for_each: {
          source: "{artifacts.made}",
          select: "items[]",
          max_items: 5000,
          max_concurrency: concurrency,
        },
      },
    ],
  };
}

interface Effect {
  n: number;
  key: string;
  pid: number;
  t: number;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.clear();
});

async function setup(items: number, concurrency: number, sleepMs: number) {
  const url = await freshDatabase(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), "deputy-dist-"));
  const env = {
    ...process.env,
    EFFECTS: join(dir, "effects.jsonl"),
    SLEEP_MS: String(sleepMs),
    DEPUTY_STORE: url,
  };
  writeFileSync(join(dir, "tools.mjs"), toolsModule);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan(items, concurrency)));
  writeFileSync(env.EFFECTS, "");
  const effects = () =>
    readFileSync(env.EFFECTS, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Effect);
  const deputy = (...args: string[]) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    children.add(child);
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on("exit", (code) => resolve({ code, stdout: out, stderr: err })),
    );
    return { child, exited, stderr: () => err };
  };
  // A worker is presumed dead after 3 s without a heartbeat: on this shared 2-core machine (load averages of
  // 20 and more) a live worker's 250 ms heartbeat is sometimes a second late, and a live worker presumed dead
  // has its in-flight units run twice (still under one idempotency key).
  const worker = (...extra: string[]) =>
    deputy(
      "worker",
      "--tools",
      "tools.mjs",
      "--concurrency",
      "4",
      "--lease-ttl",
      "2",
      "--dead-after-ms",
      "3000",
      ...extra,
    );
  return { url, dir, effects, deputy, worker };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function started(w: { stderr: () => string }) {
  await until(() => w.stderr().includes("started"), "a worker to start");
}

describe("distributed runs on PostgreSQL and Graphile Worker", () => {
  it("spreads a for_each over two workers: every item once, the run completes, deputy runs lists it", async () => {
    const s = await setup(60, 6, 20);
    const workers = [s.worker(), s.worker()];
    await Promise.all(workers.map(started));
    const run = await s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--json").exited;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("no `deputy worker` is alive");
    const manifest = JSON.parse(run.stdout);
    expect(manifest).toMatchObject({ status: "completed", nodes: { each: { items: { ok: 60 } } } });
    expect(manifest.artifacts.out_59).toBe(118);
    const effects = s.effects();
    expect(effects.map((e) => e.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(new Set(effects.map((e) => e.pid)).size).toBe(2);
    expect(effects.every((e) => e.key === `${manifest.runId}/each/${e.n}`)).toBe(true);

    const runs = await s.deputy("runs").exited;
    expect(runs.stdout).toContain(manifest.runId);
    expect(runs.stdout).toContain("completed");

    // SIGTERM: the workers stop gracefully (exit 0).
    for (const w of workers) w.child.kill("SIGTERM");
    for (const w of workers) expect((await w.exited).code).toBe(0);
  });

  it("says when no worker is alive (the units wait, it is not a hang), and goes on when one starts", async () => {
    const s = await setup(4, 2, 0);
    const run = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--json");
    await until(() => run.stderr().includes("no `deputy worker` is alive on this store"), "the notice");
    expect(s.effects()).toEqual([]);
    const w = s.worker();
    const done = await run.exited;
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({
      status: "completed",
      nodes: { each: { items: { ok: 4 } } },
    });
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
  });

  it("resumed from the console, a distributed run's units run on its workers again", async () => {
    const s = await setup(4, 2, 0);
    // The coordinator dies while its units wait for a worker; its lease lapses a second later.
    const run = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--lease-ttl", "1");
    const store = new PostgresRunStore(s.url);
    try {
      let runId: string | undefined;
      await until(async () => {
        runId = (await store.list({ limit: 1 }))[0]?.runId;
        if (runId === undefined) return false;
        const jobs = await store.pool
          .query(`SELECT 1 FROM graphile_worker._private_jobs LIMIT 1`)
          .catch(() => ({ rowCount: 0 })); // the queue's schema is made with its first job
        return (jobs.rowCount ?? 0) > 0;
      }, "the run to wait for its first unit");
      run.child.kill("SIGKILL");
      await run.exited;
      // A worker that runs units only: the console, not a worker's takeover, is what coordinates the run here.
      const w = s.worker("--no-take-over");
      await started(w);
      await new Promise((r) => setTimeout(r, 1200));
      // The console resumes with its own --tools (the record's module is never imported).
      const runner = new ResumeRunner(store, new RunToolLoader(join(s.dir, "tools.mjs")));
      await runner.start(runId!);
      await runner.drain();
      expect(runner.get(runId!)).toMatchObject({ state: "done", status: "completed" });
      // Every unit ran in the worker, none in the console's process.
      expect(s.effects()).toHaveLength(4);
      expect(new Set(s.effects().map((e) => e.pid))).toEqual(new Set([w.child.pid]));
      w.child.kill("SIGTERM");
      await w.exited;
    } finally {
      await store.close();
    }
  });

  it("refuses --distributed without a PostgreSQL store, with exit 2 and one line", async () => {
    const s = await setup(3, 1, 0);
    const run = await s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--store", "x.db")
      .exited;
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("postgres://");
  });

  it("a worker stopped with SIGTERM finishes its running units and exits 0; another worker does the rest", async () => {
    const s = await setup(6, 2, 800);
    const first = s.worker("--concurrency", "2");
    await started(first);
    const run = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--json");
    await until(() => s.effects().length >= 2, "two units to start");
    first.child.kill("SIGTERM");
    const stopped = await first.exited;
    expect(stopped.code, stopped.stderr).toBe(0);
    const second = s.worker();
    const done = await run.exited;
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({
      status: "completed",
      nodes: { each: { items: { ok: 6 } } },
    });
    // The units running at SIGTERM finished there and did not run again.
    const effects = s.effects();
    expect(effects.map((e) => e.n).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(effects.filter((e) => e.pid === first.child.pid).length).toBeGreaterThanOrEqual(2);
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  });

  it("brings a killed worker's running units back to another worker within dead-after + one heartbeat", async () => {
    // Default liveness timing (heartbeat 250 ms, dead after 1000 ms): the recovery time docs/scale-out.md states.
    const s = await setup(4, 4, 10_000);
    const live = (...extra: string[]) => s.deputy("worker", "--tools", "tools.mjs", ...extra);
    const doomed = live("--concurrency", "4");
    await started(doomed);
    const run = s.deputy("run", "plan.json", "--tools", "tools.mjs", "--distributed", "--json");
    await until(() => s.effects().length === 4, "the first worker to start all four units");
    const rescuer = live("--concurrency", "4");
    await started(rescuer);
    doomed.child.kill("SIGKILL");
    const killedAt = Date.now();
    const done = await run.exited;
    expect(done.code, done.stderr).toBe(0);
    const { runId } = JSON.parse(done.stdout) as { runId: string };
    const effects = s.effects();
    const rerun = effects.filter((e) => e.pid === rescuer.child.pid);
    // Each unit ran twice — on the killed worker, then on the other — under its one idempotency key.
    expect(rerun.map((e) => e.n).sort()).toEqual([0, 1, 2, 3]);
    for (const e of effects) expect(e.key).toBe(`${runId}/each/${e.n}`);
    const after = rerun.map((e) => e.t - killedAt);
    console.log(
      `recovery: a killed worker's 4 running units started again ${Math.min(...after)}–${Math.max(...after)} ms ` +
        `after kill -9 (heartbeat 250 ms, dead after 1000 ms; load average ${loadavg()[0]!.toFixed(1)})`,
    );
    rescuer.child.kill("SIGTERM");
    expect((await rescuer.exited).code).toBe(0);
  });

  it("survives kill -9 of workers and of the coordinator at random moments", async () => {
    const ITEMS = 300;
    // 150 ms units: the run lasts long enough (≥ 6 s) for the kills to land on units in flight.
    const s = await setup(ITEMS, 8, 150);
    const workers = [s.worker(), s.worker(), s.worker()];
    await Promise.all(workers.map(started));
    let coordinator = s.deputy(
      "run",
      "plan.json",
      "--tools",
      "tools.mjs",
      "--distributed",
      "--lease-ttl",
      "2",
    );
    const store = new PostgresRunStore(s.url);
    try {
      const runId = async () => (await store.list())[0]?.runId;
      await until(async () => (await runId()) !== undefined, "the run to start");
      const id = (await runId())!;
      // Completed units (outcome stored, or item committed) at each kill: none of them may run again after it.
      const snapshots: { at: number; done: Map<number, string[]> }[] = [];
      const kills: { at: number; pid: number }[] = [];
      const completedNow = async () => {
        const { rows } = await store.pool.query<{ n: number; how: string }>(
          `SELECT split_part(key, '/', 3)::int AS n, 'outcome ' || worker AS how FROM deputy.unit_results
           WHERE run_id = $1 AND key LIKE '%/each/%'
           UNION ALL SELECT idx, 'item ' || (record->>'status') FROM deputy.items WHERE run_id = $1 AND node_id = 'each'`,
          [id],
        );
        const done = new Map<number, string[]>();
        for (const r of rows) done.set(r.n, [...(done.get(r.n) ?? []), r.how]);
        return done;
      };
      const kill = async (child: ChildProcess) => {
        child.kill("SIGKILL");
        const at = Date.now();
        kills.push({ at, pid: child.pid! });
        snapshots.push({ at, done: await completedNow() });
      };
      let coordinatorKilled = false;
      const status = async () => (await store.load(id))?.run.status;
      let round = 0;
      while ((await status()) === "running" && round < 200) {
        round++;
        await new Promise((r) => setTimeout(r, 200 + Math.random() * 500));
        const progress = s.effects().length;
        if (!coordinatorKilled && progress > ITEMS / 4) {
          coordinatorKilled = true;
          await kill(coordinator.child);
          continue;
        }
        if (progress > 0 && kills.length < 8) {
          const victim = workers.splice(Math.floor(Math.random() * workers.length), 1)[0]!;
          await kill(victim.child);
          const fresh = s.worker();
          workers.push(fresh);
        }
      }
      await until(async () => (await status()) !== "running", "the run to end without a person", 90_000);
      const stored = (await store.load(id))!;
      expect(stored.run.status).toBe("completed");
      expect(coordinatorKilled).toBe(true);
      expect(kills.length).toBeGreaterThanOrEqual(3);
      expect(Object.values(stored.items.each!).filter((i) => i.status === "ok")).toHaveLength(ITEMS);
      expect(stored.artifacts[`out_${ITEMS - 1}`]).toBe((ITEMS - 1) * 2);

      const effects = s.effects();
      // Every item ran, always under its one idempotency key.
      const byItem = new Map<number, Effect[]>();
      for (const e of effects) byItem.set(e.n, [...(byItem.get(e.n) ?? []), e]);
      expect(byItem.size).toBe(ITEMS);
      for (const [n, runs] of byItem)
        expect(new Set(runs.map((r) => r.key))).toEqual(new Set([`${id}/each/${n}`]));
      // No unit completed before a kill ran again after it.
      for (const snap of snapshots)
        for (const [n, how] of snap.done)
          expect(
            byItem.get(n)!.filter((e) => e.t > snap.at),
            `item ${n} was complete at a kill (${how.join(", ")}): ${JSON.stringify({ at: snap.at, runs: byItem.get(n), kills })}`,
          ).toEqual([]);
      // No unit ran again once its outcome was committed (at any time, not only at kills): every execution of an
      // item started before its outcome's commit (the server started by scripts/postgres.sh tracks commit
      // times; another server falls back to the insert's start, which is a little stricter).
      const { rows: outcomes } = await store.pool.query<{ n: number; at: Date; worker: string }>(
        `SELECT split_part(key, '/', 3)::int AS n, worker,
           coalesce(pg_xact_commit_timestamp(xmin), created_at) AS at
         FROM deputy.unit_results WHERE run_id = $1 AND key LIKE '%/each/%'`,
        [id],
      );
      expect(outcomes).toHaveLength(ITEMS);
      for (const { n, at, worker } of outcomes)
        for (const e of byItem.get(n)!)
          expect(
            e.t,
            `item ${n} ran again after ${worker} committed its outcome: ${JSON.stringify({ at, runs: byItem.get(n), kills })}`,
          ).toBeLessThanOrEqual(at.getTime() + 5);
      // Repeats of in-flight units: mostly those of a killed process; report how long recovery took.
      const killedPids = new Set(kills.map((k) => k.pid));
      const recoveries: number[] = [];
      let notKilled = 0;
      for (const runs of byItem.values()) {
        for (const [i, earlier] of runs.slice(0, -1).entries()) {
          const k = kills.find((k) => k.pid === earlier.pid);
          if (!k || !killedPids.has(earlier.pid)) notKilled++;
          else recoveries.push(runs[i + 1]!.t - k.at);
        }
      }
      const span = recoveries.length
        ? `${Math.min(...recoveries)}–${Math.max(...recoveries)} ms after the kill`
        : "none re-run";
      console.log(
        `distributed chaos: ${kills.length} kills (coordinator once), ${recoveries.length} in-flight units re-run ` +
          `(${span}); ${notKilled} re-run after a live worker was presumed dead (load average ${loadavg()[0]!.toFixed(1)})`,
      );
    } finally {
      await store.close();
      coordinator = undefined!;
    }
  });
});
