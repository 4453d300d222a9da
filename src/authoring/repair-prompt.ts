import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { issueLine } from "./authoring-prompt.js";
import type { CatalogueEntry } from "./tool-catalogue.js";

/** At most this many issues go back in the correction round (as for authoring). */
const MAX_ISSUES_SHOWN = 50;
/** An eligible node's error is shown cut to this many characters (a tool's stack or page must not flood it). */
const MAX_ERROR_CHARS = 2_000;

/** A node the model may replace, with how it ended (its error redacted like a trace). */
export interface EligibleNode {
  id: string;
  status: string;
  error?: { code: string; message: string };
}

/**
 * The system message of a repair: the rules (what may and may not change), the allowed tools' catalogue and
 * the plan as it ran. JSON throughout, so the model reads them exactly as the checker will.
 */
export function repairSystemPrompt(catalogue: readonly CatalogueEntry[], plan: unknown): string {
  return [
    "You repair execution plans for deputy. A run of the plan below failed; some of its nodes ended in `error` or `blocked`.",
    'Answer with exactly one JSON object { "nodes": [ … ] } and nothing else: each entry is a whole replacement for one node of the plan, with the same `id`.',
    "",
    "Rules:",
    "- Replace only the nodes listed as eligible. Everything else completed and stays as it is.",
    "- Give each replacement in full: every field of the node, changed or not.",
    "- On a tool node you may change `tool`, `args`, `when`, `timeout`, `retry` and `description`.",
    "- On a delegate node you may change `instruction`, `facts` and `tools` (and raise `min_confidence`).",
    "- Never change `type`, `store_as`, `depends_on`, or a `for_each`'s `source`, `select` or `skip_existing`; never add or remove nodes; never lower `min_confidence`; never set `allow_side_effects`.",
    "- Use only the tools in the catalogue below; a tool node's `args` give every required argument of its tool and no other.",
    "",
    "Tool catalogue (JSON):",
    JSON.stringify(catalogue, null, 1),
    "",
    "The plan (JSON):",
    JSON.stringify(plan),
  ].join("\n");
}

/** The first user message: the eligible nodes and how each ended. */
export function failureMessage(nodes: readonly EligibleNode[]): string {
  return [
    "These nodes failed and may be replaced (id, status, error):",
    ...nodes.map((n) => {
      const error = n.error ? `${n.error.code}: ${n.error.message}` : "(blocked by a failed dependency)";
      return `- ${n.id} (${n.status}): ${error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}… (cut)` : error}`;
    }),
    "",
    'Answer with the replacement nodes as { "nodes": [ … ] }.',
  ].join("\n");
}

/** The correction round's message: every issue of the delta as text, and what to answer. */
export function deltaCorrectionMessage(issues: readonly PlanIssue[]): string {
  const errors = issues.filter((i) => i.severity === "error");
  const shown = errors.slice(0, MAX_ISSUES_SHOWN).map((i) => `- ${issueLine(i)}`);
  if (errors.length > shown.length) shown.push(`- … and ${errors.length - shown.length} more`);
  return [
    "Your delta is refused. These issues were found:",
    ...shown,
    "",
    'Answer with the whole corrected delta as one JSON object { "nodes": [ … ] }, and nothing else.',
  ].join("\n");
}

/** The delta's JSON Schema for structured output: `{ nodes: [node, …] }`, the node as the plan schema has it. */
export function deltaJsonSchema(planSchema: JsonSchema): JsonSchema {
  const {
    properties,
    required: _required,
    title: _title,
    ...rest
  } = planSchema as JsonSchema & {
    properties?: Record<string, unknown>;
    required?: unknown;
    title?: unknown;
  };
  return {
    ...rest,
    type: "object",
    properties: { nodes: properties?.nodes ?? { type: "array" } },
    required: ["nodes"],
    additionalProperties: false,
  } as JsonSchema;
}
