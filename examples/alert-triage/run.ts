// The alert-triage example from TypeScript: the same plan, tools and distilled delegate as
// `npm run example`, through the library (README, "Quick start"). Run: npm run example:ts
//
// The plan is plan.json written with the builder (the fields plan.json spells out at their defaults left out):
// each node's fields are typed from its node type, so a misspelt field is a compile error, and `build()` gives
// the JSON a plan file holds.
import { DistilledDelegate, plan, runPlan, SqliteRunStore } from "deputy-js";
import { tools } from "./tools.mjs";

const triage = plan("alert-triage", {
  objective:
    "Fetch the open alerts and let a small model pick one action for each (page, ticket or ignore); the accept gate decides what runs.",
  metadata: { max_parallel_tasks: 4 },
})
  .tool("fetch_alerts", { tool: "fetch_alerts", args: { file: "alerts.json" }, store_as: "fetch_alerts" })
  .delegate("triage_items", {
    depends_on: ["fetch_alerts"],
    for_each: { source: "{artifacts.fetch_alerts}", select: "alerts[]", max_items: 50, max_concurrency: 4 },
    instruction: "Analyze this alert and select the most appropriate action: {item.summary}",
    facts: { alert_id: "{item.id}", severity: "{item.severity}", environment: "production" },
    tools: ["escalate_to_pagerduty", "file_jira_ticket", "ignore_alert"],
    min_confidence: 0.8,
    on_reject: "escalate",
    store_as: "triage_result_{index}",
  })
  .build();

const manifest = await runPlan(triage, {
  tools,
  delegates: [new DistilledDelegate({ model: ".deputy/triage.model.json" })],
  store: new SqliteRunStore(".deputy/runs.db"),
});
console.log(manifest.status, manifest.nodes.triage_items?.items); // escalated { ok: 7, escalated: 5, … }
