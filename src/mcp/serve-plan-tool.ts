import { TOOL_NAME } from "../agents/contract.js";
import { delegateNodeType } from "../delegate/delegate-node-type.js";
import { InputFileError } from "../errors/input-file-error.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { NodeType } from "../plan/node-type.js";
import type { BaseNode, ExecutionPlan } from "../plan/plan-schema.js";
import { toolNodeType } from "../plan/tool-node-type.js";
import { validatePlan, type ValidateOptions, type ValidationReport } from "../plan/validate-plan.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { compileSchema } from "../schema/validator.js";
import { RUN_STATUS_TOOL } from "./serve-run-answer.js";

/** One plan as a plan server serves it: the MCP tool a client lists, and what a call of it runs. */
export interface ServedPlanTool {
  /** The tool's name: the plan's `name`. */
  name: string;
  /** The plan's `objective`, and how the tool answers. */
  description: string;
  /** The plan's declared `inputs` as an object schema (no inputs: an empty object). */
  inputSchema: JsonSchema;
  /** The artifact a completed run answers with (the plan's `returns`), when it declares one. */
  returns: string | undefined;
  /** Where the plan came from (its file), when known. */
  source: string | undefined;
  /** The plan as given (what a run starts from, and what its fingerprint is of). */
  plan: unknown;
  /** The plan's inputs as declared, for checking a call's arguments (`checkPlanInputs`). */
  declaredInputs: JsonSchema | undefined;
  /** The validation report of `plan`, handed to every run so the plan is not validated again per call. */
  report: ValidationReport;
  /**
   * `true` when no node of the plan can call a side-effecting tool (see {@link readOnlyPlan}): the tool is
   * then listed with `annotations.readOnlyHint: true`.
   */
  readOnly: boolean;
}

/**
 * Validates the plans a server is to serve, each against the run's tools, delegates and agents, and makes each
 * a tool: every error names the plan (its file, else `plans[i]`), and nothing is served unless every plan is
 * sound — a server that silently drops a plan would answer "unknown tool" later instead.
 */
export function servedPlanTools(
  plans: readonly unknown[],
  sources: readonly (string | undefined)[] | undefined,
  validate: ValidateOptions,
): ServedPlanTool[] {
  const tools: ServedPlanTool[] = [];
  const byName = new Map<string, string>();
  plans.forEach((plan, i) => {
    const source = sources?.[i];
    const where = source ?? `plans[${i}]`;
    const report = validatePlan(plan, validate);
    if (!report.ok || !report.plan) throw invalid(where, describeIssues(report.issues));
    const parsed = report.plan;
    if (!TOOL_NAME.test(parsed.name) || parsed.name === RUN_STATUS_TOOL)
      throw invalid(
        where,
        parsed.name === RUN_STATUS_TOOL
          ? `the plan's name "${RUN_STATUS_TOOL}" is the server's own status tool; rename the plan`
          : `the plan's name ${JSON.stringify(parsed.name)} is not a tool name (1–64 letters, digits, \`_\` or \`-\`)`,
      );
    const other = byName.get(parsed.name);
    if (other !== undefined)
      throw invalid(
        where,
        `another plan is named "${parsed.name}" too (${other}); give each plan its own name`,
      );
    byName.set(parsed.name, where);
    const declaredInputs = parsed.inputs as JsonSchema | undefined;
    tools.push({
      name: parsed.name,
      description: describePlan(parsed),
      inputSchema: inputSchemaOf(declaredInputs, where),
      returns: parsed.returns,
      source,
      plan,
      declaredInputs,
      report,
      readOnly: readOnlyPlan(parsed, validate),
    });
  });
  return tools;
}

/**
 * Whether no node of the plan can call a side-effecting tool: every node is a tool or a delegate node (any other
 * type — an agent, a node type of the host's own — may do anything), and every tool one can call (a tool node's
 * tool, each of a delegate node's candidates, which is also all a person's decision may call) is delegate-safe
 * as the host defines it (an MCP server's `readOnlyHint` counts only from a trusted server). What a client
 * reads in `readOnlyHint` is then what deputy itself relies on to let a model call a tool unasked.
 */
export function readOnlyPlan(plan: ExecutionPlan, { host, nodeTypes }: ValidateOptions): boolean {
  const readOnlyTypes: readonly NodeType<any>[] = [toolNodeType, delegateNodeType];
  return (plan.nodes as BaseNode[]).every((node) => {
    const type = nodeTypes.get(node.type ?? nodeTypes.implicit ?? "");
    if (!type || !readOnlyTypes.includes(type)) return false;
    return (type.tools?.(node) ?? []).every((name) => host.tools.find(name)?.delegateSafe === true);
  });
}

/** The tool's input schema: the plan's `inputs`, an object whose unknown keys are refused (as `deputy run` refuses them). */
function inputSchemaOf(declared: JsonSchema | undefined, where: string): JsonSchema {
  if (declared === undefined) return { type: "object", properties: {}, additionalProperties: false };
  if (declared.type !== undefined && declared.type !== "object")
    throw invalid(
      where,
      `the plan's \`inputs\` must describe an object, got type ${JSON.stringify(declared.type)}`,
    );
  try {
    compileSchema(declared);
  } catch (error) {
    throw invalid(where, `the plan's \`inputs\` are not a valid JSON Schema: ${(error as Error).message}`);
  }
  const { $schema: _dialect, ...schema } = declared;
  return {
    ...schema,
    type: "object",
    properties: typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {},
    additionalProperties: false,
  };
}

/** What a calling model reads: the plan's objective, then what the answer holds. */
function describePlan(plan: ExecutionPlan): string {
  const objective = plan.objective.trim() || `Runs the deputy plan "${plan.name}".`;
  const answer = plan.returns
    ? `Answers with the run's result (the plan's "${plan.returns}" artifact) and its run id.`
    : "Answers with the run's id and status (the plan returns no artifact).";
  return `${objective}\n\n${answer} A run that needs a person's decision answers with its run id and what waits; \`${RUN_STATUS_TOOL}\` reads its outcome later.`;
}

function describeIssues(issues: PlanIssue[]): string {
  const errors = issues.filter((i) => i.severity === "error");
  const shown = errors
    .slice(0, 5)
    .map((i) => `${i.code}${i.nodeId ? ` [${i.nodeId}]` : ""}: ${i.message}`)
    .join("; ");
  return `the plan is invalid (${errors.length} issue${errors.length === 1 ? "" : "s"}: ${shown}${errors.length > 5 ? "; …" : ""})`;
}

function invalid(where: string, problem: string): InputFileError {
  return new InputFileError("PLAN_INVALID_FILE", `${where}: ${problem}.`);
}
