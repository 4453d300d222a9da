/**
 * The console end to end in a real browser (Debian's chromium through playwright-core): a run of the
 * alert-triage example escalates five items; a person opens the console, sees the run's graph, decides every
 * escalation in the inbox (accepting, correcting a call through the schema form, skipping), resumes, and
 * watches the run complete — and the tools' effects land in the example's outbox.
 */
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTraces } from "../../src/traces/read-traces.js";
import { tracesToChat } from "../../src/traces/trace-export.js";
import { cli, exampleRun, launchBrowser, type Fixture } from "./ui-harness.js";

describe("deputy ui in chromium", () => {
  let browser: Browser;
  let page: Page;
  let fx: Fixture;
  const dialogs: string[] = [];

  beforeAll(async () => {
    fx = await exampleRun();
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  const outbox = () =>
    readFileSync(fx.outbox, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, string>);

  it("lists the run and draws its plan as a graph with statuses and escalations", async () => {
    await page.goto(fx.console.url);
    // The token leaves the address bar once it is stored.
    await expect.poll(() => page.url()).not.toContain("token=");
    const row = page.locator("table.runs tbody tr").filter({ hasText: fx.runId });
    await expect.poll(() => row.locator(".badge").textContent()).toBe("escalated");
    expect(await row.textContent()).toContain("5 to decide");

    await row.getByRole("link", { name: fx.runId }).click();
    const graph = page.locator("svg.graph");
    await graph.waitFor();
    expect(await graph.locator('[data-node="fetch_alerts"]').getAttribute("data-status")).toBe("ok");
    const triage = graph.locator('[data-node="triage_items"]');
    expect(await triage.getAttribute("data-status")).toBe("escalated");
    expect(await triage.textContent()).toContain("12/12");
    expect(await triage.locator(".gflag").textContent()).toBe("5");

    // The node page pages its items and filters them by status.
    await triage.click();
    await page.locator("table.items").waitFor();
    expect(await page.locator("table.items tbody tr.item-row").count()).toBe(12);
    await page.locator(".filters select").selectOption("escalated");
    await expect.poll(() => page.locator("table.items tbody tr.item-row").count()).toBe(5);
  });

  it("shows the trace viewer with a confidence histogram against min_confidence", async () => {
    await page.goto(`${fx.console.origin}/#/traces?runId=${fx.runId}&nodeId=triage_items`);
    await page.locator("figure.histogram").waitFor();
    expect(await page.locator("figure.histogram figcaption").textContent()).toContain("min_confidence 0.8");
    expect(await page.locator("table.traces tbody tr").count()).toBe(12);
    await page.locator('select[name="verdict"]').selectOption("low_confidence");
    await expect.poll(() => page.locator("table.traces tbody tr").count()).toBe(1);
  });

  it("decides every escalation in the inbox, resumes, and the run completes with the tools' effects", async () => {
    expect(outbox()).toHaveLength(7);
    await page.goto(`${fx.console.origin}/#/inbox`);
    const entry = (item: number) => page.locator(`article.escalation[data-item="${item}"]`);
    await entry(5).waitFor();
    expect(await page.locator("article.escalation").count()).toBe(5);
    expect(await entry(5).textContent()).toContain("invalid_args");
    expect(await entry(5).locator('[aria-label="facts"]').textContent()).toContain("ALR-1006");

    const record = async (item: number) => {
      await entry(item).getByRole("button", { name: "Record decision" }).click();
      await expect.poll(() => entry(item).locator(".decided").count()).toBe(1);
    };

    // No name yet: refused before anything is sent.
    await entry(11).getByLabel("Skip").check();
    await entry(11).getByRole("button", { name: "Record decision" }).click();
    expect(await entry(11).getByRole("alert").textContent()).toContain("Enter your name");
    await page.locator('input[name="by"]').fill("Ada");
    await record(11);
    expect(await entry(11).locator(".decided").textContent()).toContain("Decided by Ada: skip");

    // Accepting item 5's proposal as it is fails the same gate as `deputy resolve` (urgency is not in the enum).
    await entry(5).getByLabel("Accept the proposal").check();
    await entry(5).getByRole("button", { name: "Record decision" }).click();
    await expect
      .poll(() => entry(5).getByRole("alert").textContent())
      .toMatch(/rejected on resume \(invalid_args\)/);
    // Corrected through the form generated from the tool's schema.
    await entry(5).getByLabel("Correct the call").check();
    await entry(5).locator('select[name="urgency"]').selectOption({ label: "high" });
    await record(5);

    await entry(2).getByLabel("Accept the proposal").check();
    await record(2);

    // Item 8 proposed a tool that is not a candidate: pick one and fill its form.
    await entry(8).getByLabel("Correct the call").check();
    await entry(8).locator('select[name="tool"]').selectOption("escalate_to_pagerduty");
    await entry(8).locator('input[name="alert_id"]').fill("ALR-1009");
    await entry(8).locator('select[name="urgency"]').selectOption({ label: "low" });
    await entry(8).locator('input[name="summary"]').fill("Card authorisations declining");
    await record(8);

    // Item 10 carried a key outside the schema: the form leaves it out.
    expect(await entry(10).textContent()).toContain("left out: assignee");
    await record(10);

    const group = page.locator(`section.run-group[data-run="${fx.runId}"]`);
    await group.getByRole("button", { name: "Resume run" }).click();
    await expect.poll(() => page.url()).toContain(`#/runs/${fx.runId}`);
    await expect.poll(() => page.locator("h1 .badge").textContent(), { timeout: 20_000 }).toBe("completed");
    expect(await page.locator('svg.graph [data-node="triage_items"]').getAttribute("data-status")).toBe("ok");
    expect(await page.locator(".resume-state").textContent()).toContain("done (run completed)");

    // The tools ran: four more actions in the outbox, the corrected ones as corrected.
    const sent = outbox();
    expect(sent).toHaveLength(11);
    const byAlert = Object.fromEntries(sent.map((e) => [e.alert_id, e]));
    expect(byAlert["ALR-1006"]).toMatchObject({ action: "pagerduty", urgency: "high" });
    expect(byAlert["ALR-1009"]).toMatchObject({ action: "pagerduty", urgency: "low" });
    expect(byAlert["ALR-1003"]).toMatchObject({ action: "jira", priority: "P2" });
    expect(byAlert["ALR-1011"]).toMatchObject({ action: "jira" });
    expect(byAlert["ALR-1011"]).not.toHaveProperty("assignee");
    expect(byAlert["ALR-1012"]).toBeUndefined();

    // Who decided is recorded with each decision, and the person's calls export as training data.
    const manifest = JSON.parse((await cli(["runs", fx.runId, "--store", fx.store.path, "--json"])).stdout);
    const details = manifest.nodes.triage_items.itemDetails;
    expect(details[5]).toMatchObject({ resolvedBy: "person", decidedBy: "Ada" });
    expect(details[11]).toMatchObject({ resolution: "skip", decidedBy: "Ada" });
    const { traces } = readTraces(fx.traces);
    const people = traces.filter((t) => t.source === "person");
    expect(people.map((t) => [t.item, t.backend, t.verdict])).toEqual(
      expect.arrayContaining([
        [5, "person:Ada", "accepted"],
        [8, "person:Ada", "accepted"],
      ]),
    );
    const answers = tracesToChat(traces).examples.map((e) => JSON.parse(e.messages[2].content));
    expect(answers).toContainEqual({
      name: "escalate_to_pagerduty",
      arguments: { alert_id: "ALR-1009", urgency: "low", summary: "Card authorisations declining" },
    });
    expect(await page.locator("a.flag").count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it("updates a run's page live while the run is in progress", async () => {
    const runId = "live-run";
    const plan = {
      name: "live",
      nodes: [{ id: "each", tool: "t", store_as: "each_{index}", for_each: { source: "{artifacts.src}" } }],
    };
    const now = new Date().toISOString();
    await fx.store.createRun({
      runId,
      planName: "live",
      fingerprint: "f",
      plan,
      status: "running",
      createdAt: now,
      updatedAt: now,
      options: { version: 1 },
    });
    await fx.store.write(runId, [
      { kind: "artifact", key: "src", value: [1, 2, 3, 4] },
      // What the engine records when a for_each starts: the item count, so progress reads from records alone.
      {
        kind: "node",
        nodeId: "each",
        record: {
          status: "running",
          storedKeys: [],
          attempts: 1,
          items: { total: 4, ok: 0, error: 0, skipped: 0, escalated: 0, reused: 0 },
        },
      },
    ]);
    await page.goto(`${fx.console.origin}/#/runs/${runId}`);
    const node = page.locator('svg.graph [data-node="each"]');
    await expect.poll(() => node.textContent()).toContain("0/4");
    await fx.store.write(runId, [
      { kind: "item", nodeId: "each", item: { index: 0, status: "ok", key: "each_0" }, value: 1 },
      { kind: "item", nodeId: "each", item: { index: 1, status: "ok", key: "each_1" }, value: 2 },
    ]);
    await expect.poll(() => node.textContent()).toContain("2/4");
    await fx.store.write(runId, [
      { kind: "item", nodeId: "each", item: { index: 2, status: "ok", key: "each_2" }, value: 3 },
      { kind: "item", nodeId: "each", item: { index: 3, status: "ok", key: "each_3" }, value: 4 },
      { kind: "node", nodeId: "each", record: { status: "ok", storedKeys: [], attempts: 1 } },
      { kind: "status", status: "completed", updatedAt: new Date().toISOString() },
    ]);
    await expect.poll(() => page.locator("h1 .badge").textContent()).toBe("completed");
    expect(await node.getAttribute("data-status")).toBe("ok");
  });
});
