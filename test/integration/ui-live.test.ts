/**
 * The console updates live, in a real chromium: a run page open on an escalated run shows its node's status change
 * without a reload when `deputy resume` (another connection to the store) finishes the run, and when the console
 * resumes it itself (its run events come over the page's server-sent events, numbered). A written plan's page says
 * what it was for and by which model; a repair child's page names its parent and shows the delta.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveRepair } from "../../src/authoring/repair-decisions.js";
import { repairRun } from "../../src/authoring/repair-run.js";
import { scriptedModel } from "../../src/authoring/scripted-model.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import { serveConsole, type RunningConsole } from "../../src/ui/server/serve-console.js";
import { cli, launchBrowser } from "./ui-harness.js";

const toolsModule = `
export default [
  { name: "list", description: "List open alerts", delegateSafe: true, input: { type: "object" },
    run: () => ({ items: [{ id: "a" }, { id: "b" }] }) },
  { name: "ignore_alert", description: "Ignore a noisy alert", delegateSafe: true,
    input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    run: ({ id }) => ({ ignored: id }) },
  { name: "fetch_v1", description: "Fetch a page (old API)", input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => { throw new Error("fetch_v1 is gone, use fetch_v2"); } },
  { name: "fetch_v2", description: "Fetch a page", delegateSafe: true, input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }) => "<page " + url + ">" },
];
`;
const watched = {
  name: "watched",
  nodes: [
    { id: "list", tool: "list", store_as: "list" },
    {
      id: "triage",
      type: "delegate",
      depends_on: ["list"],
      instruction: "Triage {item.id}",
      tools: ["ignore_alert"],
      min_confidence: 0.8,
      on_reject: "escalate",
      store_as: "triage_{index}",
      for_each: { source: "{artifacts.list}", select: "items[]", max_concurrency: 1 },
    },
  ],
};
const proposals = [0, 1]
  .map((item) =>
    JSON.stringify({
      node: "triage",
      item,
      proposal: { name: "ignore_alert", arguments: { id: "ab"[item] }, confidence: item === 0 ? 0.9 : 0.2 },
    }),
  )
  .join("\n");
const failing = {
  name: "fetch-page",
  nodes: [{ id: "fetch", tool: "fetch_v1", args: { url: "http://docs" }, store_as: "page" }],
};
const written = { name: "listing", nodes: [{ id: "list", tool: "list", store_as: "alerts" }] };

describe("the console, live (chromium)", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-ui-live-"));
  const db = join(dir, "runs.db");
  const tools = join(dir, "tools.mjs");
  let store: SqliteRunStore;
  let served: RunningConsole;
  let browser: Browser;
  let page: Page;

  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const runWatched = async () => {
    const r = await cli(["run", join(dir, "watched.json"), "--tools", tools, "--store", db, "--delegate",
      `scripted=${join(dir, "proposals.jsonl")}`, "--json"]); // prettier-ignore
    if (r.code !== 4) throw new Error(`expected the run to escalate (exit 4), got ${r.code}: ${r.stderr}`);
    return (JSON.parse(r.stdout) as { runId: string }).runId;
  };
  const nodeStatus = (nodeId: string) => page.locator(`tr[data-node="${nodeId}"] .badge`).textContent();
  const openRun = async (runId: string) => {
    await page.goto(`${served.origin}/#/runs/${encodeURIComponent(runId)}`);
    await page.locator("h1 .live[data-connected=true]").waitFor({ timeout: 10_000 });
    // Set on this document: a reload or a navigation would lose it.
    await page.evaluate(() => ((globalThis as unknown as { __kept: number }).__kept = 1));
  };
  const kept = () => page.evaluate(() => (globalThis as unknown as { __kept?: number }).__kept);

  beforeAll(async () => {
    writeFileSync(tools, toolsModule);
    file("watched.json", JSON.stringify(watched));
    file("proposals.jsonl", proposals);
    file("failing.json", JSON.stringify(failing));
    store = new SqliteRunStore(db);
    served = await serveConsole({ store, port: 0, tools });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(`${served.origin}/#token=${served.token}`);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
  });

  it("shows a node's status change without a reload when `deputy resume` in another connection ends the run", async () => {
    const runId = await runWatched();
    await openRun(runId);
    expect(await nodeStatus("triage")).toBe("escalated");
    // The run page does not poll an escalated run: only the live stream can bring the change.
    expect((await cli(["resolve", runId, "triage", "--item", "1", "--skip", "--store", db])).code).toBe(0);
    expect((await cli(["resume", runId, "--tools", tools, "--store", db])).code).toBe(0);
    await expect.poll(() => nodeStatus("triage"), { timeout: 10_000 }).toBe("ok");
    expect(await page.locator("h1 > .badge").textContent()).toBe("completed");
    expect(await kept()).toBe(1);
  });

  it("streams the run events of a resume the console runs itself, numbered after the run's last", async () => {
    const runId = await runWatched();
    const before = (await store.loadSummary(runId))!.run.eventSeq!;
    await openRun(runId);
    const post = (path: string, body: unknown) =>
      fetch(`${served.origin}${path}`, {
        method: "POST",
        headers: { "X-Deputy-Token": served.token, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    expect(
      (await post(`/api/runs/${runId}/resolve`, { nodeId: "triage", item: 1, by: "Ada", skip: true })).ok,
    ).toBe(true);
    expect((await post(`/api/runs/${runId}/resume`, {})).status).toBe(202);
    await expect.poll(() => nodeStatus("triage"), { timeout: 10_000 }).toBe("ok");
    const seq = Number(await page.locator("h1 .live").getAttribute("data-seq"));
    expect(seq).toBeGreaterThan(before);
    expect(await kept()).toBe(1);
  });

  it("shows a written plan's objective and model, and a repair child's parent and delta", async () => {
    const model = `scripted=${file("author.jsonl", JSON.stringify(written) + "\n")}`;
    const authored = await cli(["plan", "--objective", "List the open alerts", "--tools", tools,
      "--model", model, "--run", "--store", db, "--json"]); // prettier-ignore
    expect(authored.code).toBe(0);
    const authoredId = (JSON.parse(authored.stdout) as { runId: string }).runId;
    await page.goto(`${served.origin}/#/runs/${encodeURIComponent(authoredId)}`);
    await expect.poll(() => page.locator(".authored-objective").textContent()).toBe("List the open alerts");
    expect(await page.locator(".authored-model").textContent()).toBe(model);

    const failed = await cli(["run", join(dir, "failing.json"), "--tools", tools, "--store", db, "--json"]);
    expect(failed.code).toBe(1);
    const parent = (JSON.parse(failed.stdout) as { runId: string }).runId;
    const { default: loaded } = (await import(pathToFileURL(tools).href)) as { default: never };
    const delta = {
      nodes: [{ id: "fetch", tool: "fetch_v2", args: { url: "http://docs" }, store_as: "page" }],
    };
    const repaired = await repairRun(store, parent, {
      tools: loaded,
      model: await scriptedModel([JSON.stringify(delta)]),
      modelLabel: "scripted=repairs",
    });
    expect(repaired.ok).toBe(true);
    const { childRunId } = await approveRepair(store, parent, { by: "Ada" });
    await page.goto(`${served.origin}/#/runs/${encodeURIComponent(childRunId)}`);
    await expect.poll(() => page.locator(".lineage-parent").textContent()).toContain(parent);
    const made = page.locator(".made-by");
    expect(await made.getAttribute("data-repair")).toBe("r1");
    expect(await made.textContent()).toContain("from scripted=repairs: replaced fetch");
    expect(await page.locator(".made-by-diff").textContent()).toContain('tool: "fetch_v1" → "fetch_v2"');
  });
});
