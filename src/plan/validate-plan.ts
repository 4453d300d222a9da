import type { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { PlanValidationError } from "../errors/plan-validation-error.js";
import { schemaProperties, schemaRequired } from "../schema/json-schema.js";
import { jsonDepth, MAX_JSON_DEPTH } from "../schema/json-value.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { compileGuard } from "../runtime/cel-guard.js";
import type { ExecutionHost, NodeExecutor } from "./node-executor.js";
import { nodeSchemas, planHeaderSchema, type ExecutionPlan, type PlanNode } from "./plan-schema.js";
import { unknownFieldHint } from "./unknown-field-hint.js";
import { parseSelectPath } from "../runtime/select-path.js";
import { checkTemplates, storeAsProducers } from "./check-references.js";
import { planIssue as issue } from "./plan-issue.js";

/** What validation needs besides the plan. */
export interface ValidateOptions {
  host: ExecutionHost;
  executors: Partial<Record<PlanNode["type"], NodeExecutor<any>>>;
  /** Artifact keys that exist before the run starts (initial artifacts). */
  knownArtifacts?: Iterable<string>;
}

/** The parsed plan (when its structure is sound) and every issue found, errors and warnings. */
export interface ValidationReport {
  plan: ExecutionPlan | undefined;
  issues: PlanIssue[];
  ok: boolean;
}

/**
 * Validates a plan in one pass and reports every issue with its code and node id: structure (unknown fields
 * included), duplicate ids, unknown or missing dependencies, cycles, tools and their arguments, CEL, select
 * paths, templates, `store_as` rules, and each node type's own checks.
 */
export function validatePlan(input: unknown, options: ValidateOptions): ValidationReport {
  const issues: PlanIssue[] = [];
  // Measured first and iteratively: the checks below recurse, and a plan nested thousands deep must be an
  // issue, not a stack overflow.
  if (jsonDepth(input, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    issues.push(
      issue("too_deep", `the plan is nested more than ${MAX_JSON_DEPTH} levels deep`, undefined, ""),
    );
    return { plan: undefined, issues, ok: false };
  }
  const header = planHeaderSchema.safeParse(input);
  if (!header.success) {
    issues.push(...zodIssues(header.error, undefined, "", planHeaderSchema));
    if (!isObject(input) || !Array.isArray(input.nodes)) return { plan: undefined, issues, ok: false };
  }
  const rawNodes = (isObject(input) && Array.isArray(input.nodes) ? input.nodes : []) as unknown[];
  const nodes: PlanNode[] = [];
  rawNodes.forEach((raw, i) => {
    const id = isObject(raw) && typeof raw.id === "string" ? raw.id : undefined;
    const type = isObject(raw) ? (raw.type ?? "tool") : undefined;
    // Own keys only: `type: "constructor"` must not find Object's constructor.
    const schema =
      typeof type === "string" && Object.hasOwn(nodeSchemas, type)
        ? nodeSchemas[type as keyof typeof nodeSchemas]
        : undefined;
    if (!schema) {
      issues.push(
        issue(
          "invalid_type",
          `type must be "tool", "delegate" or "agent", got ${JSON.stringify(type)}`,
          id,
          `nodes[${i}].type`,
        ),
      );
      return;
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) nodes.push(parsed.data as PlanNode);
    else issues.push(...zodIssues(parsed.error, id ?? `nodes[${i}]`, `nodes[${i}]`, schema));
  });
  const plan: ExecutionPlan | undefined = header.success ? { ...header.data, nodes } : undefined;
  checkGraph(nodes, rawNodes, issues);
  const producers = storeAsProducers(nodes, issues);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const known = new Set(options.knownArtifacts ?? []);
  const inputs = isObject(input) && isObject(input.inputs);
  for (const node of nodes) {
    checkTemplates(node, producers, byId, known, inputs, issues);
    if (node.when) checkCel(node.id, node.when, "when", issues);
    if (node.for_each?.select) {
      try {
        parseSelectPath(node.for_each.select);
      } catch (e) {
        issues.push(issue("invalid_select", (e as Error).message, node.id, "for_each.select"));
      }
    }
    if (node.type === "tool") checkToolNode(node, options.host, issues);
    const executor = options.executors[node.type];
    if (!executor) {
      issues.push(issue("no_executor", `no executor is configured for ${node.type} nodes`, node.id));
    } else if (executor.validate && plan) {
      issues.push(...executor.validate(node, { plan, host: options.host }));
    }
  }
  const ok = !issues.some((i) => i.severity === "error");
  return { plan: ok ? plan : undefined, issues, ok };
}

/** Like {@link validatePlan}, but throws {@link PlanValidationError} listing every error. */
export function parsePlan(
  input: unknown,
  options: ValidateOptions,
): { plan: ExecutionPlan; warnings: PlanIssue[] } {
  const report = validatePlan(input, options);
  if (!report.ok || !report.plan) throw new PlanValidationError(report.issues);
  return { plan: report.plan, warnings: report.issues };
}

function checkGraph(nodes: PlanNode[], rawNodes: unknown[], issues: PlanIssue[]) {
  const ids = new Set<string>();
  for (const raw of rawNodes) {
    const id = isObject(raw) ? raw.id : undefined;
    if (typeof id !== "string") continue;
    if (ids.has(id)) issues.push(issue("duplicate_id", `node id "${id}" is used more than once`, id));
    ids.add(id);
  }
  for (const node of nodes) {
    for (const dep of node.depends_on) {
      if (dep === node.id)
        issues.push(issue("self_dependency", `node depends on itself`, node.id, "depends_on"));
      else if (!ids.has(dep)) {
        const hint = didYouMean(dep, ids);
        issues.push(
          issue(
            "unknown_dependency",
            `depends on unknown node "${dep}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
            node.id,
            "depends_on",
          ),
        );
      }
    }
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string) => {
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of byId.get(id)?.depends_on ?? []) {
      if (!byId.has(dep) || dep === id) continue;
      if (state.get(dep) === "visiting") {
        const cycle = [...stack.slice(stack.indexOf(dep)), dep];
        const key = [...cycle].sort().join(",");
        if (!reported.has(key)) {
          reported.add(key);
          issues.push(issue("cycle", `dependency cycle: ${cycle.reverse().join(" -> ")}`, dep, "depends_on"));
        }
      } else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const node of nodes) if (!state.has(node.id)) visit(node.id);
}

function checkCel(nodeId: string, expression: string, path: string, issues: PlanIssue[]) {
  try {
    compileGuard(expression);
  } catch (e) {
    issues.push(issue("invalid_cel", (e as Error).message, nodeId, path));
  }
}

function checkToolNode(node: PlanNode & { type: "tool" }, host: ExecutionHost, issues: PlanIssue[]) {
  const tool = host.tools.find(node.tool);
  if (!tool) {
    const hint = host.tools.suggest(node.tool);
    issues.push(
      issue(
        "unknown_tool",
        `unknown tool "${node.tool}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
        node.id,
        "tool",
      ),
    );
    return;
  }
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
}

function zodIssues(
  error: z.ZodError,
  nodeId: string | undefined,
  prefix: string,
  schema: z.ZodType,
): PlanIssue[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)))]
      .filter(Boolean)
      .join(".")
      .replace(/\.\[/g, "[");
    const code = i.code === "unrecognized_keys" ? "unknown_field" : "invalid_field";
    const message =
      i.code === "unrecognized_keys"
        ? `unknown field${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `"${k}"`).join(", ")}${path ? ` in ${path}` : ""}${unknownFieldHint(schema, i.path, i.keys)}`
        : `${path || "plan"}: ${i.message}`;
    return issue(code, message, nodeId, path || undefined);
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
