import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { NodeTypeTable } from "../plan/node-type-table.js";
import type { BaseNode, ExecutionPlan } from "../plan/plan-schema.js";
import { placeholdersIn } from "../runtime/template.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { checkFieldRule, modelWritesOf } from "./model-write-policy.js";
import { shownValue } from "./repair-diff.js";

/**
 * The codes a model-written plan is refused with beyond validation's, in the order they are checked: the field
 * rules its node types declare (the built-in delegate's side-effect key and `below_confidence_floor`), then
 * these. The allowlist is validation's own `unknown_tool`: an authored plan is validated against the allowed
 * tools only.
 */
export const AUTHORED_PLAN_ISSUE_CODES = [
  "unknown_placeholder", // a warning in a hand-written plan: a placeholder deputy would keep as literal text
  "artifact_as_text", // an argument that is another node's `store_as` key as plain text, not `{artifacts.key}`
] as const;

/** A node of a model-written plan that calls tools with side effects as written (no gate of its own). */
export interface AuthoredToolCall {
  nodeId: string;
  /** The tools it calls that are not `delegateSafe`. */
  tools: string[];
  /** Its templated fields (a tool node's `args`), as the plan writes them. */
  arguments: Record<string, unknown>;
}

/** A model-written plan checked by the policy it shares with repairs. */
export interface AuthoredPlanCheck {
  /** The plan, a ruled bar the model left out set to the host's floor. */
  plan: Record<string, unknown>;
  /** Every breach, as errors (the correction round is told them). */
  issues: PlanIssue[];
  /** The nodes that wait for a person's approval before the plan runs. */
  needsApproval: AuthoredToolCall[];
}

/**
 * Holds a model-written plan to the rules its node types declare for model-written content (as a repair's delta
 * is): a field a model may never set, a bar below the host's `floor`; a placeholder deputy does not know, or
 * another node's artifact named as plain text, is an error here (validation only warns of the first, in a
 * hand-written plan). `report` is validation's answer for the plan; `tools` the allowed tools.
 */
export function checkAuthoredPlan(
  candidate: Record<string, unknown>,
  report: { plan?: ExecutionPlan | undefined; issues: readonly PlanIssue[] },
  context: { nodeTypes: NodeTypeTable; tools: ToolRegistry; floor: number },
): AuthoredPlanCheck {
  const issues: PlanIssue[] = [];
  const raw = Array.isArray(candidate.nodes) ? (candidate.nodes as unknown[]) : [];
  const nodes = raw.map((node, i) => {
    if (!isObject(node)) return node;
    const id = typeof node.id === "string" ? node.id : undefined;
    const writes = modelWritesOf(context.nodeTypes, node);
    const filled = { ...node };
    for (const [field, rule] of Object.entries(writes?.rules ?? {})) {
      if (rule.rule === "rises" && node[field] === undefined) filled[field] = context.floor;
      checkFieldRule(
        field,
        rule,
        { now: node[field], floor: context.floor },
        "a model-written plan",
        (code, message) =>
          issues.push({
            code,
            message,
            severity: "error",
            path: `nodes[${i}].${field}`,
            ...(id ? { nodeId: id } : {}),
          }),
      );
    }
    return filled;
  });
  for (const issue of report.issues)
    if (issue.code === "unknown_placeholder" && issue.severity === "warning")
      issues.push({
        ...issue,
        severity: "error",
        message: `${issue.message}: use {artifacts.<store_as>}, {inputs.<key>}, {item} or {index}`,
      });
  const parsed = report.plan?.nodes ?? [];
  issues.push(...artifactsAsText(parsed, context.nodeTypes));
  return {
    plan: { ...candidate, nodes },
    issues,
    needsApproval: parsed.flatMap((node) => sideEffectCalls(node, context.nodeTypes, context.tools)),
  };
}

/** A string argument that is exactly another node's static `store_as` key: the artifact meant, written as text. */
function artifactsAsText(nodes: readonly BaseNode[], nodeTypes: NodeTypeTable): PlanIssue[] {
  const keys = new Map<string, string>();
  for (const n of nodes) if (placeholdersIn(n.store_as).length === 0) keys.set(n.store_as, n.id);
  const issues: PlanIssue[] = [];
  for (const node of nodes) {
    for (const [path, value] of nodeTypes.get(node.type)?.templated?.(node) ?? []) {
      for (const [at, text] of strings(value, path)) {
        const producer = keys.get(text);
        if (producer === undefined || producer === node.id) continue;
        issues.push({
          code: "artifact_as_text",
          message: `${JSON.stringify(text)} is node "${producer}"'s artifact as plain text; write {artifacts.${text}} to pass its value`,
          nodeId: node.id,
          path: at,
          severity: "error",
        });
      }
    }
  }
  return issues;
}

function strings(value: unknown, path: string): [string, string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

/** The node's calls of tools that are not delegate-safe, when its type calls them as written. */
function sideEffectCalls(node: BaseNode, nodeTypes: NodeTypeTable, tools: ToolRegistry): AuthoredToolCall[] {
  const type = nodeTypes.get(node.type);
  if (!type || type.modelWrites?.gated) return [];
  const unsafe = (type.tools?.(node) ?? []).filter((name) => tools.find(name)?.delegateSafe === false);
  if (unsafe.length === 0) return [];
  return [
    {
      nodeId: node.id,
      tools: unsafe,
      arguments: Object.fromEntries(type.templated?.(node) ?? []),
    },
  ];
}

/**
 * What a person is shown before approving a model-written plan: each node that calls a tool with side effects,
 * the tools and the arguments, as terminal-safe text (every value JSON, control and invisible characters
 * escaped, long values cut).
 */
export function renderApprovalRequest(calls: readonly AuthoredToolCall[]): string {
  const lines = ["The model's plan calls tools with side effects; it runs only once a person approves it:"];
  for (const call of calls) {
    lines.push(`  node ${shownValue(call.nodeId)}: ${call.tools.map((t) => shownValue(t)).join(", ")}`);
    for (const [field, value] of Object.entries(call.arguments))
      lines.push(`      ${shownValue(field)}: ${shownValue(value)}`);
  }
  return `${lines.join("\n")}\n`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
