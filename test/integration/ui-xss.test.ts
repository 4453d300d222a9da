/**
 * Model output is untrusted: proposals full of markup, event handlers, `javascript:` links, terminal escapes and
 * secrets go through every page of the console in a real chromium, and nothing runs, links or leaks.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/ui/server/security.js";
import { exampleRun, launchBrowser, type Fixture } from "./ui-harness.js";

const SCRIPT = "<script>window.__xss='script'</script>";
const IMG = `<img src=x onerror="window.__xss='img'">`;
const LINK = "javascript:window.__xss='link'";
const SVG = `"><svg onload="window.__xss='svg'"></svg>`;
const TERMINAL = "\u001b[31mRED\u001b[0m \u001b]8;;javascript:window.__xss='osc'\u0007click\u001b]8;;\u0007";
const BIDI = "safe\u202eexe.txt";
const SECRET = "sk-live0123456789abcdefghijkl";

const line = (item: number, proposal: Record<string, unknown>) =>
  JSON.stringify({ node: "triage_items", item, proposal });
const alert = (item: number) => `ALR-${1001 + item}`;
const hostile = [
  // Escalated: low confidence, an unknown (markup) tool name, bad arguments with a secret, a declined answer.
  line(0, {
    name: "ignore_alert",
    arguments: { alert_id: alert(0), reason: `${SCRIPT} ${IMG}` },
    confidence: 0.1,
  }),
  line(1, { name: IMG, arguments: { alert_id: LINK, href: LINK }, confidence: 0.9 }),
  line(2, {
    name: "file_jira_ticket",
    arguments: { alert_id: alert(2), project: SVG, priority: "P2", title: TERMINAL, api_key: SECRET },
    confidence: 0.95,
  }),
  line(3, {
    name: "ignore_alert",
    arguments: { alert_id: alert(3), reason: `${BIDI} Bearer ${SECRET}` },
    confidence: 0.2,
  }),
  // Accepted: the hostile text reaches the tool, its stored result and the outbox.
  ...[4, 5, 6, 7, 8, 9, 10, 11].map((i) =>
    line(i, {
      name: "ignore_alert",
      arguments: { alert_id: alert(i), reason: `${SCRIPT}${IMG}${SVG}${TERMINAL}` },
      confidence: 0.99,
    }),
  ),
].join("\n");

describe("deputy ui renders hostile model output as text", () => {
  let browser: Browser;
  let page: Page;
  let fx: Fixture;
  const dialogs: string[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    fx = await exampleRun(hostile + "\n");
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  /** Nothing ran, nothing became markup or a link, and no secret is on the page. */
  async function assertInert() {
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    expect(dialogs).toEqual([]);
    // Run in the page (a string: this file is compiled without the DOM's types).
    const dom = (await page.evaluate(`({
      scripts: [...document.scripts].map((s) => s.getAttribute("src")),
      handlers: [...document.querySelectorAll("*")].flatMap((el) =>
        [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => el.tagName + " " + a.name),
      ),
      links: [...document.body.querySelectorAll("[href]")].map((el) => el.getAttribute("href")),
      images: document.querySelectorAll("main img, main iframe, main object, main embed").length,
      text: document.body.innerText,
    })`)) as { scripts: string[]; handlers: string[]; links: string[]; images: number; text: string };
    expect(dom.scripts).toHaveLength(1);
    expect(dom.scripts[0]).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    expect(dom.handlers).toEqual([]);
    expect(dom.links.filter((h) => !h.startsWith("#/"))).toEqual([]);
    expect(dom.images).toBe(0);
    expect(dom.text).not.toContain(SECRET);
    expect(dom.text).not.toContain("\u001b");
    expect(dom.text).not.toContain("\u202e");
    return dom.text;
  }

  it("serves every page with a strict Content-Security-Policy", async () => {
    const response = await page.goto(fx.console.url);
    expect(response!.headers()["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline");
  });

  it("shows hostile proposals in the inbox as text", async () => {
    await page.goto(`${fx.console.origin}/#/inbox`);
    await page.locator('article.escalation[data-item="3"]').waitFor();
    for (const d of await page.locator("details").all())
      await d.evaluate((el) => el.setAttribute("open", ""));
    const text = await assertInert();
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(text).toContain(LINK);
    // Terminal escapes and bidi overrides are shown, not obeyed (as JSON escapes inside JSON, as symbols in text).
    expect(text).toMatch(/(␛|\\u001b)\[31mRED(␛|\\u001b)\[0m/);
    expect(text).toContain("safe\\u{202e}exe.txt");
    expect(text).toContain("[REDACTED]");
    // A hostile value also goes into form fields as a value, never as markup.
    await page.locator('article.escalation[data-item="2"]').getByLabel("Correct the call").check();
    expect(await page.locator('article.escalation[data-item="2"] input[name="project"]').inputValue()).toBe(
      SVG,
    );
    await assertInert();
  });

  it("shows hostile results on the run, node and trace pages as text", async () => {
    await page.goto(`${fx.console.origin}/#/runs/${fx.runId}`);
    await page.locator("svg.graph").waitFor();
    await assertInert();
    await page.goto(`${fx.console.origin}/#/runs/${fx.runId}/nodes/triage_items`);
    await page.locator("table.items tr.item-row").first().waitFor();
    await page.locator("table.items tr.item-row").first().click();
    await page.locator("table.items tr.item-detail").waitFor();
    const text = await assertInert();
    expect(text).toContain("window.__xss='script'");
    await page.goto(`${fx.console.origin}/#/traces?runId=${fx.runId}`);
    await page.locator("table.traces tbody tr").first().waitFor();
    for (const d of await page.locator("details").all())
      await d.evaluate((el) => el.setAttribute("open", ""));
    expect(await assertInert()).toContain(IMG);
    await page.goto(`${fx.console.origin}/#/`);
    await page.locator("table.runs").waitFor();
    await assertInert();
    expect(violations).toEqual([]);
  });
});
