/**
 * An approval survives a crash: the decision is committed before anything runs, so a `deputy resume` killed
 * (SIGKILL) after it read the approval and before the call took effect loses nothing, and the next resume calls
 * the tool exactly once. The real CLI (bin/deputy.js, so `npm run build` first) on a real SQLite file.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const bin = new URL("../../bin/deputy.js", import.meta.url).pathname;

// `send` kills its own process (as a crash would, mid-resume) while the crash flag exists, before its effect.
const toolsModule = `
import { appendFileSync, existsSync } from "node:fs";
export default [
  { name: "send", description: "sends a message (side effect)", needsApproval: true,
    input: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    run: ({ to }) => {
      if (existsSync(process.env.CRASH)) process.kill(process.pid, "SIGKILL");
      appendFileSync(process.env.OUTBOX, to + "\\n");
      return { sent: to };
    } },
];`;

const plan = {
  name: "approve-kill",
  nodes: [{ id: "send", tool: "send", args: { to: "ops" }, store_as: "sent" }],
};

describe("approval and a crash", () => {
  it("a resume killed after the approval and before the call loses nothing; the next calls it once", () => {
    const dir = mkdtempSync(join(tmpdir(), "deputy-approval-kill-"));
    writeFileSync(join(dir, "tools.mjs"), toolsModule);
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    const env = { ...process.env, OUTBOX: join(dir, "outbox.txt"), CRASH: join(dir, "crash.flag") };
    const db = join(dir, "runs.db");
    const deputy = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args, "--store", db], { cwd: dir, env, encoding: "utf8" });
    const sent = () =>
      existsSync(env.OUTBOX) ? readFileSync(env.OUTBOX, "utf8").split("\n").filter(Boolean) : [];

    const run = deputy("run", "plan.json", "--tools", "tools.mjs", "--json");
    expect(run.status, run.stderr).toBe(4);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    expect(sent()).toEqual([]);
    expect(deputy("resolve", runId, "send", "--approve", "--by", "Ada").status).toBe(0);

    writeFileSync(env.CRASH, "");
    const killed = deputy("resume", runId, "--tools", "tools.mjs");
    expect(killed.signal).toBe("SIGKILL");
    expect(sent()).toEqual([]);

    rmSync(env.CRASH);
    // The dead owner was on this host: its lease is taken over at once.
    const resumed = deputy("resume", runId, "--tools", "tools.mjs", "--json");
    expect(resumed.status, resumed.stderr).toBe(0);
    const manifest = JSON.parse(resumed.stdout) as {
      status: string;
      artifacts: Record<string, unknown>;
      nodes: Record<string, { details?: Record<string, unknown> }>;
    };
    expect(manifest.status).toBe("completed");
    expect(manifest.artifacts.sent).toEqual({ sent: "ops" });
    expect(manifest.nodes.send!.details).toMatchObject({ approval: "approved", decidedBy: "Ada" });
    expect(sent()).toEqual(["ops"]);

    // A completed run stays completed: nothing is called again.
    deputy("resume", runId, "--tools", "tools.mjs");
    expect(sent()).toEqual(["ops"]);
  });
});
