// Tools of the support-routing example (policy.md). A plain ES module with no imports: deputy accepts plain objects
// of the shape of `defineTool` ({ name, description, input (JSON Schema), delegateSafe, run }).
//
// The five actions append to an outbox file (default: outbox.jsonl beside this file, or $DEPUTY_OUTBOX) instead of
// calling a help desk, so a run can be inspected. Each entry carries the idempotency key deputy passes
// (`runId/nodeId/item`), and an action already in the outbox under that key is not written again: this is how a
// tool with side effects stays exactly-once under deputy's at-least-once resume.
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

const ticketId = { type: "string", description: "The ticket's id, e.g. TCK-10231" };
const priority = {
  type: "string",
  enum: ["P1", "P2", "P3"],
  description: "enterprise: P1 if blocked, else P2; pro: P2 if blocked, else P3; free: always P3",
};

/** A routing tool: the ticket's id, its priority and one enum argument. */
function route(name, team, description, key, values) {
  return {
    name,
    description,
    delegateSafe: true,
    input: {
      type: "object",
      properties: { ticket_id: ticketId, priority, [key]: { type: "string", enum: values } },
      required: ["ticket_id", "priority", key],
      additionalProperties: false,
    },
    run: (args, ctx) => send(team, args, ctx),
  };
}

export const tools = [
  {
    name: "fetch_tickets",
    description: "Fetch the open support tickets from the inbox export (a bundled JSON file).",
    delegateSafe: true,
    input: {
      type: "object",
      properties: { file: { type: "string", description: "Path relative to the example folder" } },
      additionalProperties: false,
    },
    run: ({ file = "tickets.json" }) => JSON.parse(readFileSync(new URL(file, here), "utf8")),
  },
  route(
    "route_to_billing",
    "billing",
    "Billing team: refunds, invoices, failed payments, plan changes.",
    "category",
    ["refund", "invoice", "payment_failed", "plan_change"],
  ),
  route(
    "route_to_technical",
    "technical",
    "Technical support: the product misbehaves or how to use it.",
    "component",
    ["api", "web_app", "mobile_app", "integrations", "data_export"],
  ),
  route(
    "route_to_accounts",
    "accounts",
    "Accounts team: login, SSO, team members, login email, account deletion.",
    "request",
    ["password_reset", "sso", "user_management", "email_change", "account_deletion"],
  ),
  {
    name: "escalate_to_security",
    description:
      "Security team: a suspected account compromise or abuse, phishing, a leaked secret, a vulnerability report. Wins over every other rule.",
    delegateDescription: "Security: compromise, phishing, leaked secret, vulnerability.",
    delegateSafe: true,
    input: {
      type: "object",
      properties: {
        ticket_id: ticketId,
        summary: { type: "string", description: "The ticket's subject, as written" },
      },
      required: ["ticket_id", "summary"],
      additionalProperties: false,
    },
    run: (args, ctx) => send("security", args, ctx),
  },
  {
    name: "close_ticket",
    description:
      "Close a ticket that needs no team: spam, a duplicate, solved by the customer, or nothing to do.",
    delegateDescription: "Close: spam, duplicate, resolved by the customer, no action needed.",
    delegateSafe: true,
    input: {
      type: "object",
      properties: {
        ticket_id: ticketId,
        reason: { type: "string", enum: ["spam", "duplicate", "resolved_by_customer", "no_action_needed"] },
      },
      required: ["ticket_id", "reason"],
      additionalProperties: false,
    },
    run: (args, ctx) => send("close", args, ctx),
  },
];
