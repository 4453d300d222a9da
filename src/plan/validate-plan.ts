import type { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { PlanValidationError } from "../errors/plan-validation-error.js";
import { jsonDepth, MAX_JSON_DEPTH } from "../schema/json-value.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { compileGuard } from "../runtime/cel-guard.js";
import type { ExecutionHost, ValidationContext } from "./node-executor.js";
import type { NodeType } from "./node-type.js";
import type { PlanInputOf, UntypedPlan } from "./plan-input.js";
import { nodeSchemaOf, type NodeTypeTable } from "./node-type-table.js";
import { planHeaderSchema, type BaseNode, type ExecutionPlan } from "./plan-schema.js";
import { unknownFieldHint } from "./unknown-field-hint.js";
import { parseSelectPath } from "../runtime/select-path.js";
import { checkReturns, checkTemplates, storeAsProducers } from "./check-references.js";
import { planIssue as issue } from "./plan-issue.js";

/** What validation needs besides the plan; `T`: the node types' TypeScript types (see {@link NodeTypeTable}). */
export interface ValidateOptions<T extends NodeType<any> = NodeType<any>> {
  host: ExecutionHost;
  /** The node types the plan may use (the root entry's `createHost` registers the built-in ones). */
  nodeTypes: NodeTypeTable<T>;
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
 * Validates a plan in one pass and reports every issue with its code and node id: structure (each node against
 * its registered type's schema, unknown fields included), duplicate ids, unknown or missing dependencies,
 * cycles, host capabilities, CEL, select paths, templates (the engine's fields and the type's templated ones),
 * `store_as` rules, and each node type's own checks (a tool node's tool and arguments, …).
 *
 * A plan written in TypeScript is typed by the table's node types (a typo in a field is a compile error); one
 * only known at run time (`unknown`, `any`: a parsed file, a model's answer) is taken as it is, see
 * {@link UntypedPlan}.
 */
export function validatePlan<T extends NodeType<any>>(
  plan: NoInfer<PlanInputOf<T>>,
  options: ValidateOptions<T>,
): ValidationReport;
/** A plan only known at run time: `unknown` or `any`, e.g. `JSON.parse` of a plan file. */
export function validatePlan<const P>(plan: UntypedPlan<P>, options: ValidateOptions): ValidationReport;
export function validatePlan(input: unknown, options: ValidateOptions): ValidationReport {
  // JavaScript callers of the engine's own entries (startRun, continueRun) pass what they pass: a missing table
  // (the `executors` of earlier versions) is a clear error, not a TypeError deep in the loop.
  if (!Array.isArray((options.nodeTypes as { names?: unknown } | undefined)?.names))
    throw new InvalidOptionError(
      "nodeTypes",
      "a NodeTypeTable of the plan's node types (the root entry's createHost makes one)",
      options.nodeTypes,
    );
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
    issues.push(...zodIssues(header.error, undefined, "", planHeaderSchema, input));
    if (!isObject(input) || !Array.isArray(input.nodes)) return { plan: undefined, issues, ok: false };
  }
  const rawNodes = (isObject(input) && Array.isArray(input.nodes) ? input.nodes : []) as unknown[];
  const { nodeTypes, host } = options;
  const nodes: BaseNode[] = [];
  const typeOf = new Map<BaseNode, NodeType<any>>();
  rawNodes.forEach((raw, i) => {
    const id = isObject(raw) && typeof raw.id === "string" ? raw.id : undefined;
    const name = isObject(raw) ? (raw.type ?? nodeTypes.implicit) : undefined;
    const type = typeof name === "string" ? nodeTypes.get(name) : undefined;
    if (!type) {
      issues.push(
        issue(
          "invalid_type",
          `type must be ${nodeTypes.describeNames()}, got ${JSON.stringify(name)}`,
          id,
          `nodes[${i}].type`,
        ),
      );
      return;
    }
    const parsed = nodeSchemaOf(type).safeParse(raw);
    if (parsed.success) {
      nodes.push(parsed.data as BaseNode);
      typeOf.set(parsed.data as BaseNode, type);
    } else
      issues.push(...zodIssues(parsed.error, id ?? `nodes[${i}]`, `nodes[${i}]`, nodeSchemaOf(type), raw));
  });
  const plan: ExecutionPlan | undefined = header.success ? { ...header.data, nodes } : undefined;
  checkGraph(nodes, rawNodes, issues);
  const lacking = checkCapabilities(typeOf, host, issues);
  const producers = storeAsProducers(nodes, issues);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const known = new Set(options.knownArtifacts ?? []);
  const inputs = isObject(input) && isObject(input.inputs);
  if (isObject(input)) checkReturns(input.returns, producers, known, issues);
  const ctx: ValidationContext = { plan, host };
  for (const node of nodes) {
    const type = typeOf.get(node)!;
    checkTemplates(node, type.templated?.(node) ?? [], producers, byId, known, inputs, issues);
    if (node.when) checkCel(node.id, node.when, "when", issues);
    if (node.for_each?.select) {
      try {
        parseSelectPath(node.for_each.select);
      } catch (e) {
        issues.push(issue("invalid_select", (e as Error).message, node.id, "for_each.select"));
      }
    }
    if (lacking.has(type)) continue; // its own checks would read what the host lacks
    if (type.validate) issues.push(...type.validate(node, ctx));
    const executor = nodeTypes.executorOf(type.name);
    if (executor?.validate) issues.push(...executor.validate(node, ctx));
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

function checkGraph(nodes: BaseNode[], rawNodes: unknown[], issues: PlanIssue[]) {
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

/**
 * A host composed by hand may lack what a node type reads (`NodeType.capabilities`): one issue per type and
 * missing field, on the first node of that type, instead of a TypeError in its checks or in the middle of the
 * run. Returns the types that lack something.
 */
function checkCapabilities(
  typeOf: Map<BaseNode, NodeType<any>>,
  host: ExecutionHost,
  issues: PlanIssue[],
): Set<NodeType<any>> {
  const seen = new Set<NodeType<any>>();
  const lacking = new Set<NodeType<any>>();
  for (const [node, type] of typeOf) {
    if (seen.has(type)) continue;
    seen.add(type);
    for (const capability of type.capabilities ?? []) {
      if (capability in host) continue;
      lacking.add(type);
      issues.push(
        issue(
          "missing_capability",
          `${type.name} nodes need the host's \`${String(capability)}\`, which this host does not have`,
          node.id,
        ),
      );
    }
  }
  return lacking;
}

function zodIssues(
  error: z.ZodError,
  nodeId: string | undefined,
  prefix: string,
  schema: z.ZodType,
  input: unknown,
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
        : `${path || "plan"}: ${i.message}${i.code === "invalid_value" ? enumValueHint(input, i.path, i.values) : ""}`;
    return issue(code, message, nodeId, path || undefined);
  });
}

/** `` (did you mean "escalate"?)`` for a string that is a plausible typo of one of the values an enum allows. */
function enumValueHint(input: unknown, path: readonly PropertyKey[], values: readonly unknown[]): string {
  let value = input;
  for (const key of path) {
    const container = value as Record<PropertyKey, unknown>;
    value =
      typeof value === "object" && value !== null && Object.hasOwn(value, key) ? container[key] : undefined;
  }
  if (typeof value !== "string") return "";
  const hint = didYouMean(
    value,
    values.filter((v) => typeof v === "string"),
  );
  return hint === undefined ? "" : ` (did you mean "${hint}"?)`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
