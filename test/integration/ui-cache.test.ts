/**
 * The console's mark of cached tool results, in a real browser: a run that reuses a cached node result and two
 * cached item results shows "cached" beside the node's status and beside those items' statuses, and nowhere else.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runPlan } from "../../src/compose/index.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { serveConsole, type RunningConsole } from "../../src/ui/server/serve-console.js";
import { launchBrowser } from "./ui-harness.js";

describe("deputy ui: cached results", () => {
  let browser: Browser | undefined;
  let served: RunningConsole | undefined;
  let store: SqliteRunStore | undefined;
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
  });

  it("marks a cached node and its cached items in the node view", async () => {
    store = new SqliteRunStore(join(mkdtempSync(join(tmpdir(), "deputy-ui-cache-")), "runs.db"));
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({ q: z.string() }),
      delegateSafe: true,
      cache: { ttl: 600 },
      run: ({ q }) => ({ found: q }),
    });
    const plan = {
      name: "cached",
      nodes: [
        { id: "one", tool: "lookup", args: { q: "x" }, store_as: "one" },
        {
          id: "each",
          tool: "lookup",
          args: { q: "{item}" },
          store_as: "e_{index}",
          for_each: { source: "{artifacts.qs}", max_concurrency: 1 },
        },
      ],
    };
    await runPlan(plan, { tools: [lookup], store, artifacts: { qs: ["a", "b"] } });
    const second = await runPlan(plan, { tools: [lookup], store, artifacts: { qs: ["a", "c", "b"] } });
    served = await serveConsole({ store, port: 0 });
    browser = await launchBrowser();
    const page = await browser.newPage();
    await page.goto(served.url);
    await expect.poll(() => page.url()).not.toContain("token=");
    await page.goto(`${served.origin}/#/runs/${second.runId}/nodes/one`);
    await page.locator("h1 .cached").waitFor();
    await page.goto(`${served.origin}/#/runs/${second.runId}/nodes/each`);
    await page.locator("table.items tbody tr.item-row").first().waitFor();
    await expect.poll(() => page.locator("table.items tbody tr.item-row").count()).toBe(3);
    expect(await page.locator("h1 .cached").count()).toBe(0);
    const marks = await page
      .locator("table.items tbody tr.item-row")
      .evaluateAll((rows) => rows.map((r) => r.querySelector(".cached") !== null));
    expect(marks).toEqual([true, false, true]);
  });
});
