// Turns handwritten.tsv (alerts written by hand, each labelled by hand with the example's policy: see
// handwritten.md) into handwritten.jsonl, traces of the `triage_items` node rendered exactly as the node renders
// them. Only the call's arguments follow mechanically from the label and the severity, as the policy says
// (urgency, priority, summary/title = the alert text, reason); nothing here makes up an alert.
//
//   node examples/alert-triage/data/handwritten.mjs              # handwritten.tsv → handwritten.jsonl
//   node examples/alert-triage/data/handwritten.mjs escalations  # escalations.tsv → escalations.jsonl
//   node examples/alert-triage/data/handwritten.mjs development  # development.tsv → development.jsonl
//   node examples/alert-triage/data/handwritten.mjs holdout2     # holdout2.tsv → holdout2.jsonl
//   node examples/alert-triage/data/handwritten.mjs holdout3     # holdout3.tsv → holdout3.jsonl
//   node examples/alert-triage/data/handwritten.mjs holdout4     # holdout4.tsv → holdout4.jsonl
//   node examples/alert-triage/data/handwritten.mjs holdout5     # holdout5.tsv → holdout5.jsonl
//   node examples/alert-triage/data/handwritten.mjs holdout6     # holdout6.tsv → holdout6.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout7     # holdout7.tsv → holdout7.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout8     # holdout8.tsv → holdout8.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout9     # holdout9.tsv → holdout9.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout10    # holdout10.tsv → holdout10.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout11    # holdout11.tsv → holdout11.jsonl (measured once)
//   node examples/alert-triage/data/handwritten.mjs holdout12    # holdout12.tsv → holdout12.jsonl (measured once)
//
// `renderAlertTsv(text, name)` is the same rendering for code (bench/flywheel-sealed.ts renders a sealed set with
// it, in memory, only once its protocol is committed): a set not in FIRST_ID gets ids from ALR-1001.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tools } from "../tools.mjs";

const here = new URL(".", import.meta.url);
const specs = ["escalate_to_pagerduty", "file_jira_ticket", "ignore_alert"].map((name) => {
  const t = tools.find((x) => x.name === name);
  return { name, description: t.delegateDescription ?? t.description, parameters: t.input };
});
const REASONS = { info: "informational", nonprod: "non-production", resolved: "self-resolved" };

function call(label, id, severity, text) {
  if (label === "page") {
    if (!["critical", "high"].includes(severity)) throw new Error(`page with severity ${severity}: ${text}`);
    return {
      name: "escalate_to_pagerduty",
      arguments: { alert_id: id, urgency: severity === "critical" ? "high" : "low", summary: text },
    };
  }
  if (label === "ticket") {
    const priority = { high: "P2", medium: "P3", low: "P4" }[severity];
    if (!priority) throw new Error(`ticket with severity ${severity}: ${text}`);
    return { name: "file_jira_ticket", arguments: { alert_id: id, project: "OPS", priority, title: text } };
  }
  if (!REASONS[label]) throw new Error(`unknown label ${label}`);
  return { name: "ignore_alert", arguments: { alert_id: id, reason: REASONS[label] } };
}

/** The first alert id of each set (`ALR-<id>`, one more per line). */
export const FIRST_ID = {
  handwritten: 7001,
  escalations: 8001,
  development: 9001,
  holdout2: 6001,
  holdout3: 5001,
  holdout4: 4001,
  holdout5: 3001,
  holdout6: 2001,
  holdout7: 1001,
  holdout8: 10001,
  holdout9: 11001,
  holdout10: 12001,
  holdout11: 13001,
  holdout12: 14001,
  holdout13: 15001,
};

/** The `triage_items` traces of a TSV's text (`severity<TAB>label<TAB>text` a line; `#` lines are comments). */
export function renderAlertTsv(text, name, firstId = FIRST_ID[name] ?? 1001) {
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  return lines.map((line, item) => {
    const [severity, label, alert] = line.split("\t");
    const id = `ALR-${firstId + item}`;
    return {
      runId: name,
      nodeId: "triage_items",
      item,
      instruction: `Analyze this alert and select the most appropriate action: ${alert}`,
      facts: { alert_id: id, severity, environment: "production" },
      tools: specs,
      proposal: null,
      verdict: "accepted",
      finalCall: call(label, id, severity, alert),
      backend: "person",
      latencyMs: 0,
      time: "2026-11-30T00:00:00.000Z",
      source: "person",
    };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const name = process.argv[2] ?? "handwritten";
  if (!FIRST_ID[name]) throw new Error(`unknown set ${name}`);
  const traces = renderAlertTsv(readFileSync(new URL(`${name}.tsv`, here), "utf8"), name);
  writeFileSync(new URL(`${name}.jsonl`, here), traces.map((t) => JSON.stringify(t)).join("\n") + "\n");
  console.error(`${name}.jsonl: ${traces.length} traces`);
}
