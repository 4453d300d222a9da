import { writeFileSync } from "node:fs";
import { seededRandom } from "../../distill/random.js";
import { examplesFromTraces, type TrainingExample } from "../../distill/training-examples.js";
import type { DelegateTrace } from "../../traces/trace.js";

// A node whose decisions follow a rule a distilled model learns from a few hundred of them: the kind of trouble
// in the alert decides page / ticket P2 / ticket P3, and the service is copied from the text.

export const LEARN_NODE = "route";

export const LEARN_TOOLS = [
  {
    name: "page",
    description: "Page on-call.",
    parameters: {
      type: "object",
      properties: { service: { type: "string" } },
      required: ["service"],
      additionalProperties: false,
    },
  },
  {
    name: "ticket",
    description: "File a ticket.",
    parameters: {
      type: "object",
      properties: { service: { type: "string" }, priority: { type: "string", enum: ["P2", "P3"] } },
      required: ["service", "priority"],
      additionalProperties: false,
    },
  },
];

const SERVICES = ["checkout", "billing", "search", "auth", "inventory", "mailer", "reports", "gateway"];
const TROUBLE = {
  page: [
    "is down",
    "returns 500 for every request",
    "outage in production",
    "all requests failing",
    "crashed",
  ],
  P2: ["is slow", "latency above target", "p99 latency high", "responses degraded", "timeouts rising"],
  P3: [
    "typo on the status page",
    "log noise",
    "a deprecated setting warning",
    "cosmetic glitch",
    "disk at 60%",
  ],
} as const;
const FILLER = ["", "since 10:02", "per the dashboard", "reported by a customer", "again", "in eu-west"];

/** `n` people's decisions of {@link LEARN_NODE}, as traces (what `deputy run --traces` writes). */
export function learnTraces(n: number, seed = 1, firstId = 1): DelegateTrace[] {
  const r = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const service = pick(SERVICES);
    const kind = pick(["page", "P2", "P3"] as const);
    const call =
      kind === "page"
        ? { name: "page", arguments: { service } }
        : { name: "ticket", arguments: { service, priority: kind } };
    return {
      runId: "people",
      nodeId: LEARN_NODE,
      item: i,
      instruction: `Route this alert: ${service} ${pick(TROUBLE[kind])} ${pick(FILLER)}`.trim(),
      facts: { alert_id: `A${firstId + i}` },
      tools: LEARN_TOOLS,
      proposal: null,
      verdict: "accepted",
      finalCall: call,
      backend: "person",
      latencyMs: 0,
      time: "2026-12-01T00:00:00.000Z",
      source: "person",
    } as unknown as DelegateTrace;
  });
}

/** The same decisions as training examples. */
export function learnExamples(n: number, seed = 1, firstId = 1): TrainingExample[] {
  return examplesFromTraces(learnTraces(n, seed, firstId), LEARN_NODE).examples;
}

/** Writes traces as a `.jsonl` file. */
export function writeTraces(path: string, traces: readonly unknown[]): void {
  writeFileSync(path, traces.map((t) => JSON.stringify(t)).join("\n") + "\n");
}
