import { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { schemaProperties, schemaRequired, type JsonSchema } from "../schema/json-schema.js";
import { validateValue } from "../schema/validator.js";
import { placeholdersIn } from "../runtime/template.js";
import type { Tool } from "../tools/define-tool.js";
import { didYouMean } from "../tools/did-you-mean.js";
import type { ExecutionHost } from "./node-executor.js";
import { defineNodeType } from "./node-type.js";
import { planIssue as issue } from "./plan-issue.js";
import { toolNodeExecutor } from "./tool-node-executor.js";
import { toolNodeFields, type ToolNode } from "./tool-node.js";

/**
 * The `tool` node type: a deterministic call of a registered tool with rendered arguments. It is the implicit
 * type (a node without `type` is a tool node, as in the seed format). Its details: `attempts` when the call was
 * retried; `cached: true` when the result came from the cache (`cache: { ttl }`); `approval` (`approved` |
 * `rejected`), `decidedBy` and `reason` when the call waited for a person.
 */
export const toolNodeType = defineNodeType({
  name: "tool",
  implicit: true,
  fields: toolNodeFields,
  templated: (node) => [["args", node.args]],
  tools: (node) => [node.tool],
  validate: (node, { host }) => checkToolNode(node, host),
  executor: toolNodeExecutor,
  details: z.strictObject({
    attempts: z.int().min(1).optional(),
    cached: z.literal(true).optional(),
    // A call that waited for approval: the person's decision, who made it and (a rejection's) reason.
    approval: z.enum(["approved", "rejected"]).optional(),
    decidedBy: z.string().optional(),
    reason: z.string().optional(),
  }),
  // A repair may swap the tool and its call; the tool must be allowed. Its call is not gated: a model-written
  // plan's tool node that calls a tool with side effects waits for a person's approval.
  modelWrites: {
    free: ["tool", "args", "when", "timeout", "retry", "description"],
    toolFields: ["tool"],
    nested: ["args"],
  },
});

/** The tool exists (with a did-you-mean), every required argument is given, and no unknown one. */
function checkToolNode(node: ToolNode, host: ExecutionHost): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const tool = host.tools.find(node.tool);
  if (!tool) {
    issues.push(
      issue(
        "unknown_tool",
        `unknown tool "${node.tool}"${host.tools.unknownHint(node.tool)}`,
        node.id,
        "tool",
      ),
    );
    return issues;
  }
  if (node.cache && !tool.delegateSafe)
    issues.push(
      issue(
        "cache_side_effect",
        `tool "${tool.name}" is not delegate-safe (read-only), so its results cannot be cached: remove "cache"`,
        node.id,
        "cache",
      ),
    );
  const props = schemaProperties(tool.parameters);
  for (const req of schemaRequired(tool.parameters)) {
    if (!(req in node.args))
      issues.push(
        issue("missing_arg", `tool "${tool.name}" needs argument "${req}"`, node.id, `args.${req}`),
      );
  }
  const closed =
    tool.parameters.additionalProperties === false ||
    (props.length > 0 && tool.parameters.additionalProperties === undefined);
  if (closed) {
    for (const key of Object.keys(node.args)) {
      if (!props.includes(key)) {
        const hint = didYouMean(key, props);
        issues.push(
          issue(
            "unknown_arg",
            `tool "${tool.name}" has no argument "${key}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
            node.id,
            `args.${key}`,
          ),
        );
      }
    }
  }
  issues.push(...literalArgIssues(node, tool));
  return issues;
}

/** Each tool's schema without `required`: missing arguments are reported by name above, not again here. */
const partialSchemas = new WeakMap<object, JsonSchema>();

/**
 * The arguments written as literals (no placeholder anywhere in them) checked against the tool's schema now, as
 * the call will check them: a wrong type is a validation issue, not a node that fails when the run gets there.
 * Arguments with placeholders are checked when they are rendered; unknown keys are `unknown_arg` above. (The
 * validator changes nothing it checks: no coercion, no defaults.)
 */
function literalArgIssues(node: ToolNode, tool: Tool): PlanIssue[] {
  const literal = Object.entries(node.args).filter(([, value]) => placeholdersIn(value).length === 0);
  if (literal.length === 0) return [];
  let schema = partialSchemas.get(tool.parameters);
  if (!schema) {
    const { required: _required, ...rest } = tool.parameters;
    schema = rest;
    partialSchemas.set(tool.parameters, schema);
  }
  const result = validateValue(schema, Object.fromEntries(literal));
  if (result.ok) return [];
  return result.issues
    .filter((m) => !/^\(root\): unknown key /.test(m))
    .map((m) => {
      const key = /^\/([^/:]+)/.exec(m)?.[1]?.replaceAll("~1", "/").replaceAll("~0", "~");
      return issue(
        "invalid_arg",
        `tool "${tool.name}" argument ${m.replace(/^\/[^:]*: /, (at) => `${at.slice(1, -2)}: `)}`,
        node.id,
        key === undefined ? "args" : `args.${key}`,
      );
    });
}
