// What a model sees of the plan tools (planTools, plan-tools.ts): each tool's name, description and argument
// schema, and which are delegate-safe. What the tools do is plan-tools.ts's handlers.
import type { JsonSchema } from "../schema/json-schema.js";
import { compileSchema, formatIssues } from "../schema/validator.js";
import { defineTool, type Tool } from "../tools/define-tool.js";
import { listNamedPlans } from "./named-plans.js";
import { refusal, refusalOf } from "./plan-tools-answers.js";

/** Plans listed by name in `plan_execute`'s description at most (a long folder would crowd the model's prompt). */
const MAX_LISTED_PLANS = 50;

/** What each plan tool does with its (already checked) arguments. */
export interface PlanToolHandlers {
  execute(args: ExecuteArgs): unknown;
  validate(args: { plan?: Record<string, unknown>; name?: string }): unknown;
  status(args: { run_id: string }): unknown;
  artifacts(args: { run_id: string; keys?: string[] }): unknown;
  resume(args: { run_id: string }): unknown;
  repair(args: { run_id: string }): unknown;
}

/**
 * The six plan tools, in the order an agent is given them. `listed.plans` are the named plans `plan_execute`
 * lists; `listed.approveRepairs` says whether `plan_repair` runs a repair or keeps it for a person.
 */
export function declarePlanTools(
  handlers: PlanToolHandlers,
  listed: { plans: readonly { name: string; plan: unknown }[]; approveRepairs: boolean },
): Tool[] {
  return [
    planTool({
      name: "plan_execute",
      description: executeDescription(listed.plans),
      parameters: {
        type: "object",
        properties: {
          objective: {
            type: "string",
            minLength: 1,
            description:
              "What to achieve, in words: a plan is written for it from the tools there are, then run.",
          },
          name: { type: "string", minLength: 1, description: "The name of a plan to run." },
          plan: { type: "object", description: "An execution plan as JSON, to run as it is." },
          inputs: {
            type: "object",
            description: "Values for the plan's declared inputs (with name or plan).",
          },
        },
        additionalProperties: false,
      },
      run: handlers.execute,
    }),
    planTool({
      name: "plan_validate",
      description:
        "Check an execution plan (given as JSON, or a named plan) without running it: every issue, each with its code and node id, and the inputs a named plan takes.",
      parameters: {
        type: "object",
        properties: {
          plan: { type: "object", description: "An execution plan as JSON." },
          name: { type: "string", minLength: 1, description: "The name of a plan." },
        },
        additionalProperties: false,
      },
      delegateSafe: true,
      run: handlers.validate,
    }),
    planTool({
      name: "plan_status",
      description:
        "Where a run stands: its status, each node's status and error, and the keys of what it stored. Use it for a run that was still going on.",
      parameters: runIdSchema(),
      delegateSafe: true,
      run: handlers.status,
    }),
    planTool({
      name: "plan_artifacts",
      description: "The values a run stored (all, or the keys given); large values come back as a preview.",
      parameters: runIdSchema({
        keys: {
          type: "array",
          items: { type: "string" },
          description: "Only these artifact keys (default: all).",
        },
      }),
      delegateSafe: true,
      run: handlers.artifacts,
    }),
    planTool({
      name: "plan_resume",
      description:
        "Continue a run that failed, was stopped or paused, from its last checkpoint: completed nodes are kept, failed ones run again as they are.",
      parameters: runIdSchema(),
      run: handlers.resume,
    }),
    planTool({
      name: "plan_repair",
      description: listed.approveRepairs
        ? "Repair a failed run: the model writes replacements for its failed nodes (another tool, other arguments), and the repaired run goes on as a child run that keeps every completed node. Answers like plan_execute, with the child's run_id."
        : "Ask for a repair of a failed run: replacements for its failed nodes (another tool, other arguments) are written and kept for a person to approve; the answer shows the change. Completed nodes are kept when it runs.",
      parameters: runIdSchema(),
      run: handlers.repair,
    }),
  ];
}

/** The arguments of `plan_execute`: exactly one of `objective`, `name` or `plan`. */
export interface ExecuteArgs {
  objective?: string;
  name?: string;
  plan?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/** The named plans as `plan_execute`'s description lists them. */
export function listPlans(
  plans: string | Readonly<Record<string, unknown>> | undefined,
): { name: string; plan: unknown }[] {
  if (plans === undefined) return [];
  if (typeof plans === "string") return listNamedPlans(plans);
  return Object.entries(plans).map(([name, plan]) => ({ name, plan }));
}

/** `plan_execute`'s description: what it does, then the named plans (at most {@link MAX_LISTED_PLANS}). */
function executeDescription(plans: readonly { name: string; plan: unknown }[]): string {
  const lines = [
    "Run an execution plan: give an objective (a plan is written for it from the tools there are), the name of a plan with its inputs, or a plan as JSON. Answers with the run's status, each node's outcome and the keys it stored; a run that takes long answers with its run_id and done: false while it goes on (ask plan_status later). A plan written for an objective that calls tools with side effects answers pending_approval: true with its run_id: it runs only once a person approves it.",
  ];
  if (plans.length) {
    lines.push("Plans by name:");
    for (const { name, plan } of plans.slice(0, MAX_LISTED_PLANS)) {
      const p = isObject(plan) ? plan : {};
      const inputs =
        isObject(p.inputs) && isObject(p.inputs.properties) ? Object.keys(p.inputs.properties) : [];
      const objective = typeof p.objective === "string" ? ` — ${p.objective.slice(0, 200)}` : "";
      lines.push(`- ${name}${inputs.length ? ` (inputs: ${inputs.join(", ")})` : ""}${objective}`);
    }
    if (plans.length > MAX_LISTED_PLANS) lines.push(`- … and ${plans.length - MAX_LISTED_PLANS} more`);
  }
  return lines.join("\n");
}

/** The argument schema of a tool that takes a run's id (and `extra`). */
function runIdSchema(extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: "object",
    properties: {
      run_id: { type: "string", minLength: 1, description: "The run's id, as plan_execute answered it." },
      ...extra,
    },
    required: ["run_id"],
    additionalProperties: false,
  };
}

/**
 * A plan tool: its arguments are checked against its schema before it runs (also when it is called directly,
 * outside a tool loop that checks them), and whatever goes wrong comes back as a refusal, never thrown.
 */
function planTool<A>(spec: {
  name: string;
  description: string;
  parameters: JsonSchema;
  delegateSafe?: boolean;
  run: (args: A) => unknown;
}): Tool {
  const check = compileSchema(spec.parameters);
  return defineTool({
    name: spec.name,
    description: spec.description,
    input: spec.parameters,
    delegateSafe: spec.delegateSafe ?? false,
    run: async (args: unknown) => {
      if (!check(args))
        return refusal(
          "invalid_arguments",
          `The arguments do not fit ${spec.name}'s schema: ${formatIssues(check.errors ?? []).join("; ")}`,
        );
      try {
        return await spec.run(args as A);
      } catch (error) {
        return refusalOf(error);
      }
    },
  });
}

/** A JSON object (not an array, not `null`). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
