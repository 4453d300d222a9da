// Renders a TSV of the support team's decisions (format: README.md) into decision records of the `route_tickets`
// node — the instruction, facts and candidate tools exactly as plan.json renders a ticket, and the call the person
// made (accepted, source "person") — one JSON line per ticket, on stdout. Only the call's arguments follow
// mechanically from the line, as policy.md says (`summary` = the subject); nothing here makes up a ticket or
// changes a decision: a line is rendered as written, and a line that names no tool or value of the policy stops it.
// It reads the one file it is given and nothing else.
//
//   node examples/support-routing/data/render.mjs examples/support-routing/data/development.tsv \
//     > examples/support-routing/data/development.jsonl
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { tools } from "../tools.mjs";

export const CANDIDATES = [
  "route_to_billing",
  "route_to_technical",
  "route_to_accounts",
  "escalate_to_security",
  "close_ticket",
];
const specs = CANDIDATES.map((name) => {
  const t = tools.find((x) => x.name === name);
  return { name, description: t.delegateDescription ?? t.description, parameters: t.input };
});
/** The enum argument of each routing tool. */
const CHOICE = {
  route_to_billing: "category",
  route_to_technical: "component",
  route_to_accounts: "request",
};

/** The person's call of one line, as policy.md's argument conventions make it. */
function call(tool, id, choice, priority, subject) {
  if (tool === "escalate_to_security") return { name: tool, arguments: { ticket_id: id, summary: subject } };
  if (tool === "close_ticket") return { name: tool, arguments: { ticket_id: id, reason: choice } };
  const key = CHOICE[tool];
  if (!key) throw new Error(`${id}: unknown tool ${tool}`);
  return { name: tool, arguments: { ticket_id: id, priority, [key]: choice } };
}

/** The decision records of a TSV's text; `runId` names the set (the file's name without `.tsv`). */
export function renderTsv(text, runId) {
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  return lines.map((line, item) => {
    const fields = line.split("\t");
    if (fields.length !== 8) throw new Error(`line ${item + 1}: ${fields.length} fields, not 8`);
    const [id, tier, channel, tool, choice, priority, subject, body] = fields;
    return {
      runId,
      nodeId: "route_tickets",
      item,
      instruction: `Route this support ticket: ${subject} — ${body}`,
      facts: { ticket_id: id, customer_tier: tier, channel },
      tools: specs,
      proposal: null,
      verdict: "accepted",
      finalCall: call(tool, id, choice, priority, subject),
      backend: "person",
      latencyMs: 0,
      time: "2026-12-03T00:00:00.000Z",
      source: "person",
    };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    process.stderr.write("usage: node render.mjs FILE.tsv > FILE.jsonl\n");
    process.exit(2);
  }
  const records = renderTsv(readFileSync(file, "utf8"), basename(file, ".tsv"));
  process.stdout.write(records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  process.stderr.write(`${basename(file)}: ${records.length} decisions\n`);
}
