import type { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { PlanValidationError } from "../errors/plan-validation-error.js";
import { schemaProperties, schemaRequired } from "../schema/json-schema.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { compileGuard } from "./cel-guard.js";
import type { ExecutionHost, NodeExecutor } from "./node-executor.js";
import { nodeSchemas, planHeaderSchema, type ExecutionPlan, type PlanNode } from "./plan-schema.js";
import { parseSelectPath } from "./select-path.js";
import { compileTemplate, placeholdersIn, type Placeholder } from "./template.js";

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
  const header = planHeaderSchema.safeParse(input);
  if (!header.success) {
    issues.push(...zodIssues(header.error, undefined, ""));
    if (!isObject(input) || !Array.isArray(input.nodes)) return { plan: undefined, issues, ok: false };
  }
  const rawNodes = (isObject(input) && Array.isArray(input.nodes) ? input.nodes : []) as unknown[];
  const nodes: PlanNode[] = [];
  rawNodes.forEach((raw, i) => {
    const id = isObject(raw) && typeof raw.id === "string" ? raw.id : undefined;
    const type = isObject(raw) ? (raw.type ?? "tool") : undefined;
    const schema = typeof type === "string" ? nodeSchemas[type as keyof typeof nodeSchemas] : undefined;
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
    else issues.push(...zodIssues(parsed.error, id ?? `nodes[${i}]`, `nodes[${i}]`));
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

/** Which node stores which artifact key: static keys by name, templated ones by pattern. */
interface Producers {
  byKey: Map<string, string>;
  patterns: { nodeId: string; pattern: RegExp }[];
}

function storeAsProducers(nodes: PlanNode[], issues: PlanIssue[]): Producers {
  const patterns: Producers["patterns"] = [];
  const staticKeys = new Map<string, string>();
  for (const node of nodes) {
    const c = compileTemplate(node.store_as);
    const parts = c.kind === "literal" ? [] : c.kind === "whole" ? [c.ref] : c.parts;
    const alias = node.for_each?.as;
    if (
      node.for_each &&
      !parts.some((p) => typeof p !== "string" && (p.root === "index" || p.root === alias))
    ) {
      issues.push(
        issue(
          "store_as_not_per_item",
          `store_as under for_each must contain {index} or an item field (e.g. {${alias}.id}), else items overwrite each other`,
          node.id,
          "store_as",
        ),
      );
    }
    if (c.kind === "literal") {
      if (!/^[A-Za-z0-9_-]+$/.test(node.store_as)) {
        issues.push(
          issue(
            "invalid_store_as",
            `store_as "${node.store_as}" may hold only letters, digits, _ and - (besides placeholders)`,
            node.id,
            "store_as",
          ),
        );
      }
      const other = staticKeys.get(node.store_as);
      if (other)
        issues.push(
          issue(
            "duplicate_store_as",
            `store_as "${node.store_as}" is also used by node "${other}"`,
            node.id,
            "store_as",
          ),
        );
      else staticKeys.set(node.store_as, node.id);
    } else {
      const source = parts.map((p) => (typeof p === "string" ? escape(p) : "[^.]+")).join("");
      patterns.push({ nodeId: node.id, pattern: new RegExp(`^${source}$`) });
    }
  }
  return { byKey: staticKeys, patterns };
}

/** True when `ancestor` is reachable from `nodeId` through depends_on (direct dependencies first). */
function dependsOn(byId: Map<string, PlanNode>, nodeId: string, ancestor: string): boolean {
  const direct = byId.get(nodeId)?.depends_on ?? [];
  if (direct.includes(ancestor)) return true;
  const seen = new Set<string>();
  const stack = [...direct];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === ancestor) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.depends_on ?? []));
  }
  return false;
}

function templatedFields(node: PlanNode): [string, unknown][] {
  const fields: [string, unknown][] = [["store_as", node.store_as]];
  if (node.for_each) fields.push(["for_each.source", node.for_each.source]);
  if (node.type === "tool") fields.push(["args", node.args]);
  if (node.type === "delegate") fields.push(["instruction", node.instruction], ["facts", node.facts]);
  if (node.type === "agent") fields.push(["input", node.input]);
  return fields;
}

function checkTemplates(
  node: PlanNode,
  producers: Producers,
  byId: Map<string, PlanNode>,
  known: Set<string>,
  hasInputs: boolean,
  issues: PlanIssue[],
) {
  const alias = node.for_each?.as;
  for (const [path, value] of templatedFields(node)) {
    for (const ref of placeholdersIn(value)) {
      if (ref.root === "artifacts") checkArtifactRef(node, ref, path, producers, byId, known, issues);
      else if ((ref.root === "index" || ref.root === alias) && node.for_each && path !== "for_each.source")
        continue;
      else if (ref.root === "inputs" && hasInputs) continue;
      else if (ref.root === "item" || ref.root === "index" || (alias !== undefined && ref.root === alias)) {
        const message = !node.for_each
          ? `${ref.text} needs a for_each on this node`
          : ref.root === "item" && alias !== "item"
            ? `${ref.text}: this node's for_each alias is "${alias}"`
            : `${ref.text} is not available in ${path}`;
        issues.push(issue("invalid_placeholder", message, node.id, path));
      } else {
        issues.push(
          issue(
            "unknown_placeholder",
            `${ref.text} is not a placeholder deputy knows; it is kept as literal text`,
            node.id,
            path,
            "warning",
          ),
        );
      }
    }
  }
}

function checkArtifactRef(
  node: PlanNode,
  ref: Placeholder,
  path: string,
  producers: Producers,
  byId: Map<string, PlanNode>,
  known: Set<string>,
  issues: PlanIssue[],
) {
  const first = ref.steps[0];
  if (!first || !("key" in first)) {
    issues.push(issue("invalid_placeholder", `${ref.text} must name an artifact`, node.id, path));
    return;
  }
  if (known.has(first.key)) return;
  const exact = producers.byKey.get(first.key);
  const matches = exact
    ? [exact]
    : producers.patterns.filter((p) => p.pattern.test(first.key)).map((p) => p.nodeId);
  if (matches.length === 0) {
    const hint = didYouMean(first.key, producers.byKey.keys());
    issues.push(
      issue(
        "unknown_artifact",
        `${ref.text}: no node stores "${first.key}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
        node.id,
        path,
      ),
    );
    return;
  }
  if (!matches.some((p) => dependsOn(byId, node.id, p))) {
    const producer = matches[0]!;
    issues.push(
      issue(
        producer === node.id ? "self_reference" : "missing_dependency",
        producer === node.id
          ? `${ref.text} refers to this node's own output`
          : `${ref.text} is stored by node "${producer}", which is not in depends_on`,
        node.id,
        path,
      ),
    );
  }
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

function zodIssues(error: z.ZodError, nodeId: string | undefined, prefix: string): PlanIssue[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)))]
      .filter(Boolean)
      .join(".")
      .replace(/\.\[/g, "[");
    const code = i.code === "unrecognized_keys" ? "unknown_field" : "invalid_field";
    const message =
      i.code === "unrecognized_keys"
        ? `unknown field${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `"${k}"`).join(", ")}${path ? ` in ${path}` : ""}`
        : `${path || "plan"}: ${i.message}`;
    return issue(code, message, nodeId, path || undefined);
  });
}

function issue(
  code: string,
  message: string,
  nodeId?: string,
  path?: string,
  severity: PlanIssue["severity"] = "error",
): PlanIssue {
  return { code, message, severity, ...(nodeId ? { nodeId } : {}), ...(path ? { path } : {}) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
