import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("examples/cascade", () => {
  it("decides every alert at the cheapest sure level and accounts for each level", () => {
    const out = spawnSync(process.execPath, ["--import", "tsx", "examples/cascade/run.ts", "--json"], {
      cwd: new URL("../..", import.meta.url).pathname,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(out.status, out.stderr).toBe(0);
    const s = JSON.parse(out.stdout) as {
      items: number;
      status: string;
      levels: Record<
        "fast" | "teacher" | "person",
        { decided: number; correct: number; tokens: number; usd: number }
      >;
    };
    const { fast, teacher, person } = s.levels;
    expect(fast.decided + teacher.decided + person.decided).toBe(s.items);
    // The fast level costs no tokens; the teacher is paid for every item it saw.
    expect(fast.tokens).toBe(0);
    expect(teacher.decided).toBeGreaterThan(0);
    expect(teacher.tokens).toBeGreaterThan(0);
    expect(teacher.usd).toBeGreaterThan(0);
    // The two alerts without a right answer reach a person, so the run waits for them.
    expect(person.decided).toBe(2);
    expect(s.status).toBe("escalated");
    expect(teacher.correct).toBe(teacher.decided);
    // What the fast level accepted is what its threshold promises: precision near the 0.98 target.
    expect(fast.decided).toBeGreaterThan(0);
    expect(fast.correct / fast.decided).toBeGreaterThanOrEqual(0.95);
  });
});
