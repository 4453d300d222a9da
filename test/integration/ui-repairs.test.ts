/**
 * Pending repairs in the console, in a real chromium: two failed runs each hold a model-written plan delta; the
 * inbox shows both beside escalations with their diffs (a hostile one as text), a person rejects one and
 * approves the other, which runs as a child run — only the replaced node and what depends on it — and both
 * run pages show the lineage. The decisions' HTTP surface keeps the escalation decisions' rules.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repairRun } from "../../src/authoring/repair-run.js";
import { scriptedModel } from "../../src/authoring/scripted-model.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import { serveConsole, type RunningConsole } from "../../src/ui/server/serve-console.js";
import { cli, launchBrowser } from "./ui-harness.js";

const IMG = `<img src=x onerror="window.__xss='img'">`;
const SECRET = "sk-live0123456789abcdefghijkl";

const toolsModule = `
import { appendFileSync } from "node:fs";
const log = (line) => appendFileSync(process.env.DEPUTY_REPAIR_LOG, line + "\\n");
export default [
  { name: "start", description: "Start", delegateSafe: true, input: { type: "object", properties: {} },
    run: () => (log("start"), "started") },
  { name: "fetch_v1", description: "Fetch a page (old API)", input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => { log("fetch_v1"); throw new Error("fetch_v1 is gone, use fetch_v2"); } },
  { name: "fetch_v2", description: "Fetch a page", delegateSafe: true, input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }) => (log("fetch_v2 " + url), "<page " + url + ">") },
  { name: "save", description: "Save a page", input: { type: "object", properties: { page: { type: "string" } }, required: ["page"] },
    run: ({ page }) => (log("save " + page), { saved: page }) },
];
`;
const plan = {
  name: "fetch-and-save",
  nodes: [
    { id: "begin", tool: "start", args: {}, store_as: "begun" },
    { id: "fetch", tool: "fetch_v1", depends_on: ["begin"], args: { url: "http://docs" }, store_as: "page" },
    {
      id: "save",
      tool: "save",
      depends_on: ["fetch"],
      args: { page: "{artifacts.page}" },
      store_as: "saved",
    },
  ],
};
const replaced = (args: Record<string, unknown>) => ({
  nodes: [{ id: "fetch", tool: "fetch_v2", depends_on: ["begin"], args, store_as: "page" }],
});

describe("pending repairs in the console (chromium)", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-ui-repairs-"));
  const log = join(dir, "effects.log");
  const db = join(dir, "runs.db");
  let store: SqliteRunStore;
  let served: RunningConsole;
  let browser: Browser;
  let page: Page;
  let good = "";
  let hostile = "";
  const dialogs: string[] = [];
  const effects = () => readFileSync(log, "utf8").trim().split("\n");

  beforeAll(async () => {
    process.env.DEPUTY_REPAIR_LOG = log;
    writeFileSync(join(dir, "tools.mjs"), toolsModule);
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    const run = async () => {
      const r = await cli([
        "run",
        join(dir, "plan.json"),
        "--tools",
        join(dir, "tools.mjs"),
        "--store",
        db,
        "--json",
      ]);
      if (r.code !== 1) throw new Error(`expected the run to fail (exit 1), got ${r.code}: ${r.stderr}`);
      return (JSON.parse(r.stdout) as { runId: string }).runId;
    };
    good = await run();
    hostile = await run();
    store = new SqliteRunStore(db);
    const { default: tools } = (await import(pathToFileURL(join(dir, "tools.mjs")).href)) as {
      default: never;
    };
    const ask = async (runId: string, delta: unknown) =>
      repairRun(store, runId, {
        tools,
        model: await scriptedModel([JSON.stringify(delta)]),
        modelLabel: "scripted=test",
      });
    expect((await ask(good, replaced({ url: "http://docs" }))).ok).toBe(true);
    expect((await ask(hostile, replaced({ url: `${IMG} ${SECRET}` }))).ok).toBe(true);
    served = await serveConsole({ store, port: 0, tools: join(dir, "tools.mjs") });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
  });

  const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token !== null) headers.set("X-Deputy-Token", init.token ?? served.token);
    headers.set("Content-Type", "application/json");
    return fetch(`${served.origin}${path}`, { ...init, headers });
  };
  const repairOf = async (runId: string) => (await store.loadSummary(runId))!.run.repairs!.at(-1)!;

  it("refuses decisions without the token, from another origin, or with a body that means something else", async () => {
    const approve = `/api/runs/${good}/repairs/r1/approve`;
    const body = JSON.stringify({ by: "Mallory" });
    expect((await api(approve, { method: "POST", body, token: null })).status).toBe(401);
    expect(
      (await api(approve, { method: "POST", body, headers: { Origin: "http://evil.example" } })).status,
    ).toBe(403);
    const extra = await api(approve, { method: "POST", body: JSON.stringify({ by: "x", plan: {} }) });
    expect(extra.status).toBe(400);
    expect((await api(`/api/runs/${good}/repairs/r9/reject`, { method: "POST", body })).status).toBe(409);
    expect((await repairOf(good)).status).toBe("pending");
  });

  it("shows both pending repairs beside the escalations, the hostile diff as text", async () => {
    await page.goto(served.url);
    // The runs list flags both runs, each with a repair to decide.
    await expect.poll(() => page.locator("table.runs a.repair-flag").count(), { timeout: 10_000 }).toBe(2);
    await page.goto(`${served.origin}/#/inbox`);
    const cards = page.locator("article.repair");
    await cards.first().waitFor();
    expect(await cards.count()).toBe(2);
    const card = page.locator(`section.repairs[data-run="${hostile}"] article.repair`);
    const diff = await card.locator('[aria-label="diff"]').textContent();
    expect(diff).toContain('tool: "fetch_v1" → "fetch_v2"');
    expect(diff).toContain("<img src=x onerror=");
    expect(diff).not.toContain(SECRET);
    expect(await card.locator('[data-node="fetch"]').textContent()).toContain(
      "fetch_v1 is gone, use fetch_v2",
    );
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    expect(await page.locator("main img").count()).toBe(0);
  });

  it("rejects one with a reason, and approves the other: its child run reuses the completed node and completes", async () => {
    const card = (runId: string) => page.locator(`section.repairs[data-run="${runId}"] article.repair`);
    // No name yet: refused before anything is sent.
    await card(hostile).getByRole("button", { name: "Reject" }).click();
    expect(await card(hostile).getByRole("alert").textContent()).toContain("Enter your name");
    await page.locator('input[name="by"]').fill("Ada");
    await card(hostile).locator('input[name="reason"]').fill("not that URL");
    await card(hostile).getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => card(hostile).count()).toBe(0);
    expect(await repairOf(hostile)).toMatchObject({
      status: "rejected",
      decidedBy: "Ada",
      reason: "not that URL",
    });

    const before = effects();
    await card(good).getByRole("button", { name: "Approve and run" }).click();
    // The click returns once the browser sent the request; the store has the child run when the server answered.
    await expect.poll(async () => (await repairOf(good)).childRunId, { timeout: 20_000 }).toBeDefined();
    const { childRunId } = await repairOf(good);
    await expect.poll(() => page.url()).toContain(`#/runs/${childRunId}`);
    await expect.poll(() => page.locator("h1 .badge").textContent(), { timeout: 20_000 }).toBe("completed");
    expect(await page.locator(".lineage-parent").textContent()).toContain(good);
    // Only the replaced node and what depends on it ran: `begin` was reused, fetch_v1 never called again.
    expect(effects().slice(before.length)).toEqual(["fetch_v2 http://docs", "save <page http://docs>"]);
    expect((await repairOf(good)).status).toBe("applied");

    await page.locator(".lineage-parent a").click();
    const item = page.locator('.lineage-repairs [data-repair="r1"]');
    await item.waitFor();
    expect(await item.textContent()).toContain(`applied by Ada → ${childRunId}`);
    await page.goto(`${served.origin}/#/`);
    const childRow = page.locator("table.runs tbody tr").filter({ hasText: childRunId! });
    await expect
      .poll(() => childRow.locator(".lineage").textContent(), { timeout: 10_000 })
      .toContain(`repair of ${good}`);
    expect(await page.locator("table.runs a.repair-flag").count()).toBe(0);
    await page.goto(`${served.origin}/#/inbox`);
    await page.locator("p.muted").filter({ hasText: "Nothing to decide." }).waitFor();
    expect(dialogs).toEqual([]);
  });
});
