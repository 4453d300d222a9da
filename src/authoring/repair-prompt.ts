import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
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
 * The system message of a repair: the rules (what may and may not change, by node type as each declares it),
 * the allowed tools' catalogue and the plan as it ran. JSON throughout, so the model reads them exactly as the
 * checker will.
 */
export function repairSystemPrompt(
  catalogue: readonly CatalogueEntry[],
  plan: unknown,
  nodeTypes: NodeTypeTable,
): string {
  return [
    "You repair execution plans for deputy. A run of the plan below failed; some of its nodes ended in `error` or `blocked`.",
    'Answer with exactly one JSON object { "nodes": [ … ] } and nothing else: each entry is a whole replacement for one node of the plan, with the same `id`.',
    "",
    "Rules:",
    "- Replace only the nodes listed as eligible. Everything else completed and stays as it is.",
    "- Give each replacement in full: every field of the node, changed or not.",
    ...typeRules(nodeTypes),
    "- Never change `type`, `store_as`, `depends_on`, or a `for_each`'s `source`, `select` or `skip_existing`; never add or remove nodes.",
    "- Use only the tools in the catalogue below; a tool node's `args` give every required argument of its tool and no other.",
    "",
    "Tool catalogue (JSON):",
    JSON.stringify(catalogue, null, 1),
    "",
    "The plan (JSON):",
    JSON.stringify(plan),
  ].join("\n");
}

/** One line per node type a repair may replace: what may change, what may only rise, what is never set. */
function typeRules(nodeTypes: NodeTypeTable): string[] {
  const lines: string[] = [];
  for (const type of nodeTypes) {
    const writes = type.modelWrites;
    if (!writes || writes.repairable === false) continue;
    const rules = Object.entries(writes.rules ?? {});
    const rises = rules.filter(([, r]) => r.rule === "rises").map(([f]) => `\`${f}\``);
    const never = rules.filter(([, r]) => r.rule === "never").map(([f]) => `\`${f}\``);
    lines.push(
      `- On a ${type.name} node you may change ${listed(writes.free.map((f) => `\`${f}\``))}${rises.length ? ` (and raise ${listed(rises)}, never lower it)` : ""}${never.length ? `; never set ${listed(never)}` : ""}.`,
    );
  }
  return lines;
}

function listed(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "nothing";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
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
