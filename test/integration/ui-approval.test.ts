/**
 * Tool approval in the console, in a real browser: a run pauses before two calls that need approval; the inbox
 * shows each exact call (a secret in it redacted) with Approve and Reject; a person approves one and rejects the
 * other with a reason, resumes, and only the approved call takes effect.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import { serveConsole, type RunningConsole } from "../../src/ui/server/serve-console.js";
import { cli, launchBrowser } from "./ui-harness.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-ui-approval-"));
const outbox = join(dir, "outbox.jsonl");

const tools = `
import { appendFileSync } from "node:fs";
export default [
  { name: "send", description: "send a message (side effect)", needsApproval: true,
    input: { type: "object", properties: { to: { type: "string" }, token: { type: "string" } }, required: ["to"] },
    run: ({ to }) => { appendFileSync(${JSON.stringify(outbox)}, to + "\\n"); return { sent: to }; } },
];
`;

const plan = {
  name: "approvals",
  nodes: [
    { id: "tell_ops", tool: "send", args: { to: "ops", token: "tok-5e6f7a8b9c" }, store_as: "ops" },
    { id: "tell_all", tool: "send", args: { to: "everyone" }, store_as: "all" },
  ],
};

describe("tool approval in the console (chromium)", () => {
  let browser: Browser;
  let page: Page;
  let store: SqliteRunStore;
  let served: RunningConsole;
  let runId: string;
  const sent = () => (existsSync(outbox) ? readFileSync(outbox, "utf8").split("\n").filter(Boolean) : []);

  beforeAll(async () => {
    writeFileSync(join(dir, "tools.mjs"), tools);
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    const db = join(dir, "runs.db");
    const run = await cli([
      "run",
      join(dir, "plan.json"),
      "--tools",
      join(dir, "tools.mjs"),
      "--store",
      db,
      "--json",
    ]);
    if (run.code !== 4) throw new Error(`expected the run to pause (exit 4), got ${run.code}: ${run.stderr}`);
    runId = (JSON.parse(run.stdout) as { runId: string }).runId;
    store = new SqliteRunStore(db);
    served = await serveConsole({ store, port: 0, tools: join(dir, "tools.mjs") });
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
  });

  it("approves one call and rejects the other with a reason; resumed, only the approved one ran", async () => {
    expect(sent()).toEqual([]);
    await page.goto(served.url);
    await expect.poll(() => page.url()).not.toContain("token=");
    await page.goto(`${served.origin}/#/inbox`);
    const entry = (node: string) => page.locator(`article.approval[data-node="${node}"]`);
    await entry("tell_ops").waitFor();
    expect(await page.locator("article.approval").count()).toBe(2);
    const call = await entry("tell_ops").locator('[aria-label="call"]').textContent();
    expect(call).toContain('"to": "ops"');
    expect(call).toContain("[REDACTED]");
    expect(await page.content()).not.toContain("tok-5e6f7a8b9c");
    expect(await entry("tell_ops").textContent()).toContain("waits for approval");

    // No name yet: refused before anything is sent.
    await entry("tell_ops").getByRole("button", { name: "Approve the call" }).click();
    expect(await entry("tell_ops").getByRole("alert").textContent()).toContain("Enter your name");
    await page.locator('input[name="by"]').fill("Ada");

    await entry("tell_ops").getByRole("button", { name: "Approve the call" }).click();
    await expect
      .poll(() => entry("tell_ops").locator(".decided").textContent())
      .toContain("Decided by Ada: approved");
    await entry("tell_all").locator('input[name="reason"]').fill("too broad");
    await entry("tell_all").getByRole("button", { name: "Reject" }).click();
    await expect
      .poll(() => entry("tell_all").locator(".decided").textContent())
      .toContain("Decided by Ada: rejected (too broad)");
    // Deciding runs nothing.
    expect(sent()).toEqual([]);

    const group = page.locator(`section.run-group[data-run="${runId}"]`);
    await group.getByRole("button", { name: "Resume run" }).click();
    await expect.poll(() => page.url()).toContain(`#/runs/${runId}`);
    await expect.poll(() => page.locator("h1 .badge").textContent(), { timeout: 20_000 }).toBe("failed");
    expect(sent()).toEqual(["ops"]);

    const manifest = JSON.parse((await cli(["runs", runId, "--store", store.path, "--json"])).stdout);
    expect(manifest.nodes.tell_ops.details).toMatchObject({ approval: "approved", decidedBy: "Ada" });
    expect(manifest.nodes.tell_all.errors[0]).toMatchObject({ code: "TOOL_CALL_REJECTED" });
    expect(manifest.nodes.tell_all.details).toEqual({
      approval: "rejected",
      decidedBy: "Ada",
      reason: "too broad",
    });
  });
});
