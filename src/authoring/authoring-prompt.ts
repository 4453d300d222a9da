import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { CatalogueEntry } from "./tool-catalogue.js";

/** At most this many issues go back to the model in the correction round (the rest would only add noise). */
const MAX_ISSUES_SHOWN = 50;
/** The model's earlier answer is shown back cut to this many characters (a huge one must not be sent again). */
const MAX_ECHO_CHARS = 8_000;

/**
 * The system message: what a plan is, the rules validation enforces, the allowed tools' catalogue and the plan
 * JSON Schema. Both are JSON so that a model reads them exactly as validation will.
 */
export function authoringSystemPrompt(
  catalogue: readonly CatalogueEntry[],
  planSchema: JsonSchema,
  rules: { nodeTypes: NodeTypeTable; floor: number },
): string {
  return [
    "You write execution plans for deputy. A plan is a JSON object: a name, the objective, and nodes that form a DAG.",
    "Answer with exactly one JSON object that fits the plan JSON Schema below, and nothing else.",
    "",
    "Rules:",
    "- Use only the tools in the catalogue below. A plan that names any other tool is refused.",
    "- Every node has a unique `id` and a unique `store_as` key; its result is stored under that key.",
    "- A node reads an earlier result as `{artifacts.<store_as>}` (or `{artifacts.<store_as>.field}`) and lists the node that stores it in `depends_on`.",
    "- A tool node's `args` give every required argument of its tool and no argument the tool does not declare.",
    "- A tool with `delegate_safe: false` may have side effects: use it only where the objective asks for that effect.",
    ...fieldRules(rules.nodeTypes, rules.floor),
    "- Use no field the schema does not list.",
    "",
    "Tool catalogue (JSON):",
    JSON.stringify(catalogue, null, 1),
    "",
    "Plan JSON Schema:",
    JSON.stringify(planSchema),
  ].join("\n");
}

/** What the node types rule for model-written fields, one line per type that has rules (never set, a floor). */
function fieldRules(nodeTypes: NodeTypeTable, floor: number): string[] {
  const lines: string[] = [];
  for (const type of nodeTypes) {
    const rules = Object.entries(type.modelWrites?.rules ?? {});
    if (rules.length === 0) continue;
    const said = rules.map(([field, rule]) =>
      rule.rule === "never" ? `never set \`${field}\`` : `\`${field}\` is at least ${floor}`,
    );
    lines.push(`- On a ${type.name} node: ${said.join("; ")}.`);
  }
  return lines;
}

/** The first user message: the objective, and the inputs the plan takes when there are some. */
export function objectiveMessage(objective: string, inputs: JsonSchema | undefined): string {
  const lines = [`Objective: ${objective}`];
  if (inputs) {
    lines.push(
      "",
      "The plan takes these inputs (its `inputs` field is set to this JSON Schema); read them in templates as `{inputs.<key>}`:",
      JSON.stringify(inputs),
    );
  }
  return lines.join("\n");
}

/** The earlier answer as it is shown back in the correction round (cut when long). */
export function echoedAnswer(text: string): string {
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}… (cut)` : text;
}

/** The correction round's message: every issue as text (code, node id, message), and what to answer. */
export function correctionMessage(issues: readonly PlanIssue[]): string {
  const errors = issues.filter((i) => i.severity === "error");
  const shown = errors.slice(0, MAX_ISSUES_SHOWN).map((i) => `- ${issueLine(i)}`);
  if (errors.length > shown.length) shown.push(`- … and ${errors.length - shown.length} more`);
  return [
    "Your plan is invalid. These issues were found:",
    ...shown,
    "",
    "Answer with the whole corrected plan as one JSON object, and nothing else.",
  ].join("\n");
}

/** One issue as one line of text: `code [node] message`. */
export function issueLine(issue: PlanIssue): string {
  return `${issue.code}${issue.nodeId ? ` [${issue.nodeId}]` : ""}: ${issue.message}`;
}
