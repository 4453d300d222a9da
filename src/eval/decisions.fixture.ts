import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedEntry } from "../delegate/scripted-delegate.js";

// Six decisions of a node with known answers, and two scripted levels whose numbers are worked out by hand in
// evaluate-chain.test.ts and eval-chain.test.ts.

export const TOOLS = [
  {
    name: "page",
    description: "Page on-call.",
    parameters: {
      type: "object",
      properties: { alert_id: { type: "string" }, summary: { type: "string" } },
      required: ["alert_id", "summary"],
    },
  },
  {
    name: "ticket",
    description: "File a ticket.",
    parameters: {
      type: "object",
      properties: { alert_id: { type: "string" }, priority: { enum: ["P2", "P3"] } },
      required: ["alert_id", "priority"],
    },
  },
];

const person = (item: number, text: string, call: { name: string; arguments: object } | null) => ({
  runId: "r1",
  nodeId: "triage",
  item,
  instruction: `Triage: ${text}`,
  facts: { alert_id: `A${item + 1}` },
  tools: TOOLS,
  proposal: null,
  verdict: call ? "accepted" : "declined",
  ...(call ? { finalCall: call } : {}),
  backend: "person",
  latencyMs: 0,
  time: "2026-12-01T00:00:00.000Z",
  source: "person",
});

/** The person's decisions (records 0–5) and one delegate hop the gate rejected (no decision). */
export const DECISIONS = [
  person(0, "database down", { name: "page", arguments: { alert_id: "A1", summary: "database down" } }),
  person(1, "disk 80%", { name: "ticket", arguments: { alert_id: "A2", priority: "P3" } }),
  person(2, "login slow", { name: "ticket", arguments: { alert_id: "A3", priority: "P2" } }),
  person(3, "api failing", {
    name: "page",
    arguments: { alert_id: "A4", summary: "API failing in eu-west" },
  }),
  person(4, "test alert, ignore", null),
  person(5, "cert expires in 20 days", { name: "ticket", arguments: { alert_id: "A6", priority: "P3" } }),
  { ...person(6, "noise", null), verdict: "low_confidence", source: "delegate", backend: "small" },
];

const said = (item: number, name: string | null, args: object, confidence: number): ScriptedEntry => ({
  node: "triage",
  item,
  proposal: { name, arguments: args as Record<string, unknown>, confidence },
});

/** Level 1 (gate at 0.8): decides 0 (right), 1 (wrong priority), 3 (summary worded otherwise). */
export const FIRST: ScriptedEntry[] = [
  said(0, "page", { alert_id: "A1", summary: "database down" }, 0.95),
  said(1, "ticket", { alert_id: "A2", priority: "P2" }, 0.9),
  said(2, "ticket", { alert_id: "A3", priority: "P2" }, 0.5),
  said(3, "page", { alert_id: "A4", summary: "eu-west API failing" }, 0.99),
  said(4, null, {}, 0.9),
  { node: "triage", item: 5, error: "timed out" },
];

/** Level 2 (gate at 0.6), asked 2, 4 and 5: decides 2 (right) and 4 (the person declined it). */
export const SECOND: ScriptedEntry[] = [
  said(2, "ticket", { alert_id: "A3", priority: "P2" }, 0.7),
  said(4, "page", { alert_id: "A5", summary: "test" }, 0.9),
  said(5, "ticket", { alert_id: "A6", priority: "P3" }, 0.4),
];

/** Writes the fixture's files into `dir`: decisions.jsonl, first.jsonl, second.jsonl. */
export function writeDecisionFixture(dir: string): { decisions: string; first: string; second: string } {
  const lines = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const files = {
    decisions: join(dir, "decisions.jsonl"),
    first: join(dir, "first.jsonl"),
    second: join(dir, "second.jsonl"),
  };
  writeFileSync(files.decisions, lines(DECISIONS));
  writeFileSync(files.first, lines(FIRST));
  writeFileSync(files.second, lines(SECOND));
  return files;
}
