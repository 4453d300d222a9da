// Tools of the alert-triage example. A plain ES module with no imports: deputy accepts plain objects of
// the shape of `defineTool` ({ name, description, input (JSON Schema), delegateSafe, run }).
//
// The three actions append to an outbox file (default: outbox.jsonl beside this file, or $DEPUTY_OUTBOX)
// instead of calling PagerDuty or Jira, so a run can be inspected. Each entry carries the idempotency key
// deputy passes (`runId/nodeId/item`), and an action already in the outbox under that key is not written
// again: this is how a tool with side effects stays exactly-once under deputy's at-least-once resume.
import { appendFileSync, existsSync, readFileSync } from "node:fs";

const here = new URL(".", import.meta.url);
const outbox = () => process.env.DEPUTY_OUTBOX ?? new URL("outbox.jsonl", here).pathname;

function alreadySent(key) {
  if (!existsSync(outbox())) return false;
  return readFileSync(outbox(), "utf8")
    .split("\n")
    .some((line) => line && JSON.parse(line).key === key);
}

function send(action, args, ctx) {
  if (alreadySent(ctx.idempotencyKey)) return { action, deduplicated: true, key: ctx.idempotencyKey };
  const entry = { key: ctx.idempotencyKey, action, ...args, at: new Date().toISOString() };
  appendFileSync(outbox(), JSON.stringify(entry) + "\n");
  return { action, key: ctx.idempotencyKey };
}

const alertId = { type: "string", description: "The alert's id, e.g. ALR-1001" };

export const tools = [
  {
    name: "fetch_alerts",
    description: "Fetch the open alerts from the monitoring export (a bundled JSON file).",
    delegateSafe: true,
    input: {
      type: "object",
      properties: { file: { type: "string", description: "Path relative to the example folder" } },
      additionalProperties: false,
    },
    run: ({ file = "alerts.json" }) => JSON.parse(readFileSync(new URL(file, here), "utf8")),
  },
  {
    name: "escalate_to_pagerduty",
    description:
      "Page the on-call engineer now. Only for customer-facing outages or data loss in production.",
    delegateDescription: "Page on-call: production outage, payments or data at risk.",
    delegateSafe: true,
    input: {
      type: "object",
      properties: {
        alert_id: alertId,
        urgency: { type: "string", enum: ["high", "low"], description: "PagerDuty urgency" },
        summary: { type: "string", description: "One line for the page" },
      },
      required: ["alert_id", "urgency", "summary"],
      additionalProperties: false,
    },
    run: (args, ctx) => send("pagerduty", args, ctx),
  },
  {
    name: "file_jira_ticket",
    description: "File a Jira ticket for the owning team to look at during working hours.",
    delegateDescription: "Ticket for the owning team: real but not urgent.",
    delegateSafe: true,
    input: {
      type: "object",
      properties: {
        alert_id: alertId,
        project: { type: "string", description: "Jira project key, e.g. OPS" },
        priority: { type: "string", enum: ["P2", "P3", "P4"] },
        title: { type: "string" },
      },
      required: ["alert_id", "project", "priority", "title"],
      additionalProperties: false,
    },
    run: (args, ctx) => send("jira", args, ctx),
  },
  {
    name: "ignore_alert",
    description: "Acknowledge an alert that needs no action (informational, expected, or noise).",
    delegateSafe: true,
    input: {
      type: "object",
      properties: { alert_id: alertId, reason: { type: "string" } },
      required: ["alert_id", "reason"],
      additionalProperties: false,
    },
    run: (args, ctx) => send("ignore", args, ctx),
  },
];
