import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;
const ITEMS = 60;

const toolsModule = `
import { appendFileSync } from "node:fs";
export const tools = [
  { name: "make", description: "list", input: { type: "object", properties: {} },
    run: () => Array.from({ length: ${ITEMS} }, (_, i) => i) },
  { name: "effect", description: "appends a line", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: async ({ n }) => { appendFileSync(process.env.EFFECTS, n + "\\n"); await new Promise((r) => setTimeout(r, 4)); return n * 2; } },
];`;

function plan(concurrency: number) {
  return {
    name: "kill-points",
    nodes: [
      { id: "make", tool: "make", store_as: "made" },
      {
        id: "each",
        tool: "effect",
        depends_on: ["make"],
        args: { n: "{item}" },
        store_as: "out_{index}",
        for_each: { source: "{artifacts.made}", max_concurrency: concurrency },
      },
      { id: "last", tool: "make", depends_on: ["each"], store_as: "last" },
    ],
  };
}

const lines = (path: string) =>
  existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).map(Number) : [];

describe("generated kill points (SIGKILL of the real CLI, then resume)", () => {
  it("nothing is lost: after resume every item is stored, and only items in flight at a kill ran twice", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: ITEMS - 1 }),
        fc.integer({ min: 1, max: 8 }),
        async (killAfter, concurrency) => {
          const dir = mkdtempSync(join(tmpdir(), "deputy-killpoint-"));
          const env = { ...process.env, EFFECTS: join(dir, "effects.txt") };
          writeFileSync(join(dir, "tools.mjs"), toolsModule);
          writeFileSync(join(dir, "plan.json"), JSON.stringify(plan(concurrency)));
          const db = join(dir, "runs.db");
          const child = spawn(
            process.execPath,
            [bin, "run", "plan.json", "--tools", "tools.mjs", "--store", db, "--lease-ttl", "1"],
            {
              cwd: dir,
              env,
              stdio: "ignore",
            },
          );
          const exited = new Promise((r) => child.once("exit", r));
          // Kill once `killAfter` side effects happened (or whenever the run ends first: then nothing to lose).
          await new Promise<void>((resolve) => {
            const timer = setInterval(() => {
              if (lines(env.EFFECTS).length >= killAfter) {
                clearInterval(timer);
                child.kill("SIGKILL");
                resolve();
              }
            }, 2);
            child.once("exit", () => {
              clearInterval(timer);
              resolve();
            });
          });
          await exited;
          if (!existsSync(db)) return; // killed before the run was created: nothing to resume, nothing lost
          const list = spawnSync(process.execPath, [bin, "runs", "--store", db, "--json"], {
            cwd: dir,
            env,
            encoding: "utf8",
          });
          const runs = JSON.parse(list.stdout) as { runId: string }[];
          if (runs.length === 0) return;
          const resumed = spawnSync(
            process.execPath,
            // The killed run still holds its lease: wait for it to lapse (the run took a 1 s lease).
            [bin, "resume", runs[0]!.runId, "--store", db, "--tools", "tools.mjs", "--json", "--wait"],
            {
              cwd: dir,
              env,
              encoding: "utf8",
            },
          );
          expect(resumed.status, resumed.stderr).toBe(0);
          const manifest = JSON.parse(resumed.stdout) as {
            status: string;
            artifacts: Record<string, unknown>;
          };
          expect(manifest.status).toBe("completed");
          for (let i = 0; i < ITEMS; i++) expect(manifest.artifacts[`out_${i}`]).toBe(i * 2);
          const counts = new Map<number, number>();
          for (const n of lines(env.EFFECTS)) counts.set(n, (counts.get(n) ?? 0) + 1);
          expect(counts.size).toBe(ITEMS);
          expect([...counts.values()].filter((c) => c > 1).length).toBeLessThanOrEqual(concurrency);
        },
      ),
      { numRuns: 4 },
    );
  }, 180_000);
});
