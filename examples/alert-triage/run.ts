// The alert-triage example from TypeScript: the same plan, tools and distilled delegate as
// `npm run example`, through the library (README, "Quick start"). Run: npm run example:ts
import { readFile } from "node:fs/promises";
import { DistilledDelegate, runPlan, SqliteRunStore } from "deputy-js";
import { tools } from "./tools.mjs";

const plan = JSON.parse(await readFile(new URL("plan.json", import.meta.url), "utf8"));
const manifest = await runPlan(plan, {
  tools,
  delegates: [new DistilledDelegate({ model: ".deputy/triage.model.json" })],
  store: new SqliteRunStore(".deputy/runs.db"),
});
console.log(manifest.status, manifest.nodes.triage_items?.items); // escalated { ok: 7, escalated: 5, … }
