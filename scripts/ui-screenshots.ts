// Takes the console screenshots in docs/ (npm run docs:screenshots): runs the alert-triage example with its
// scripted delegate (five items escalate), serves the console over that store, and captures the run page and the
// escalation inbox in Debian's chromium. Uses the built package (dist/), as users run it.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { main } from "../dist/cli/main.js";
import { SqliteRunStore } from "../dist/plan/index.js";
import { serveConsole } from "../dist/ui/server/serve-console.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-shots-"));
for (const f of ["plan.json", "tools.mjs", "alerts.json", "proposals.jsonl"])
  copyFileSync(join("examples/alert-triage", f), join(dir, f));
process.env.DEPUTY_OUTBOX = join(dir, "outbox.jsonl");
let out = "";
const db = join(dir, "runs.db");
await main(
  [
    "run",
    join(dir, "plan.json"),
    "--tools",
    join(dir, "tools.mjs"),
    "--delegate",
    `scripted=${join(dir, "proposals.jsonl")}`,
    "--store",
    db,
    "--traces",
    join(dir, "traces.jsonl"),
    "--json",
  ],
  { stdout: (t) => (out += t), stderr: () => {}, isTTY: false },
);
const { runId } = JSON.parse(out) as { runId: string };
const store = new SqliteRunStore(db);
const served = await serveConsole({ store, port: 0 });
const executablePath = execFileSync("bash", ["scripts/chromium.sh"], { encoding: "utf8" }).trim();
const browser = await chromium.launch({
  executablePath,
  args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
await page.goto(served.url);
await page.locator("table.runs").waitFor();

await page.goto(`${served.origin}/#/runs/${runId}`);
await page.locator("svg.graph").waitFor();
await page.screenshot({ path: "docs/ui-run.png", fullPage: true });

await page.goto(`${served.origin}/#/inbox`);
const entry = (item: number) => page.locator(`article.escalation[data-item="${item}"]`);
await entry(5).waitFor();
await page.locator('input[name="by"]').fill("Ada");
// Item 2 accepted as proposed; item 5's proposal refused by the gate, then being corrected in the form.
await entry(2).getByLabel("Accept the proposal").check();
await entry(2).getByRole("button", { name: "Record decision" }).click();
await entry(2).locator(".decided").waitFor();
await entry(5).getByLabel("Accept the proposal").check();
await entry(5).getByRole("button", { name: "Record decision" }).click();
await entry(5).locator('[role="alert"]').waitFor();
await entry(5).getByLabel("Correct the call").check();
await page.evaluate("window.scrollTo(0, 0)");
const box = (await entry(5).boundingBox())!;
const bottom = box.y + box.height;
await page.screenshot({
  path: "docs/ui-inbox.png",
  clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 },
  fullPage: true,
});

await browser.close();
await served.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
console.log("wrote docs/ui-run.png and docs/ui-inbox.png");
