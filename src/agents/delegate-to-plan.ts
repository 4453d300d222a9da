import { AgentDefinitionError } from "../errors/agent-definition-error.js";
import type { ExecutionPlan } from "../plan/plan-schema.js";
import { validatePlan } from "../plan/validate-plan.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { normalizeBudget, type Budget } from "./budget.js";
import { TOOL_NAME, toToolParameters } from "./contract.js";
import { callPlan } from "./plan-call.js";
import type { DelegateToPlanSpec, PlanBinding, PlanDelegationRunOptions, PlanTarget } from "./types.js";

// Declared in types.ts (they and the agent types refer to each other); exported here beside `planDelegation`.
export type { DelegateToPlanSpec, PlanDelegationRunOptions, PlanTarget } from "./types.js";

/** Options of {@link planDelegation}. */
export interface PlanDelegationOptions extends PlanDelegationRunOptions {
  /** The tool name the calling model sees. Default: the plan's `name` (when it is a valid tool name). */
  name?: string;
  /** Same as `name` (the spelling `delegateTo` uses); wins over it. */
  as?: string;
  /** What the plan does and when to use it — all the calling model reads. Default: the plan's `objective`. */
  description?: string;
  /** Limits for this delegation, exactly as for `delegateTo(agent, { budget })`. */
  budget?: Budget;
}

/**
 * The engine-level form of the root entry's `delegateToPlan`: the same declaration, with the host and node types
 * already composed (the root entry composes the built-in ones).
 */
export function planDelegation(plan: unknown, options: PlanDelegationOptions): DelegateToPlanSpec {
  const planName = isObject(plan) && typeof plan.name === "string" ? plan.name : undefined;
  const who = `delegateToPlan(${planName ?? "…"})`;
  const { name, as, description, budget: rawBudget, ...run } = options;
  const budget = normalizeBudget(rawBudget, `${who}.budget`);
  const parsed = validPlan(plan, run, who);

  if (parsed.inputs === undefined) {
    throw new AgentDefinitionError(
      `${who}: the plan declares no \`inputs\`, so a calling model cannot know its arguments. Add them to the plan as a JSON Schema object, e.g. "inputs": { "type": "object", "properties": { "queue": { "type": "string" } }, "required": ["queue"] }, and read them in templates as {inputs.queue}.`,
    );
  }
  if (parsed.returns === undefined) {
    throw new AgentDefinitionError(
      `${who}: the plan declares no \`returns\`, so a call would have no answer. Add "returns": "<artifact key>" to the plan, naming the \`store_as\` key of the node whose result the caller gets.`,
    );
  }
  const returns = parsed.returns;
  const keys = parsed.nodes.filter((n) => !n.for_each && !n.store_as.includes("{")).map((n) => n.store_as);
  const templated = parsed.nodes.some((n) => !n.for_each && n.store_as.includes("{"));
  if (!keys.includes(returns) && !templated) {
    throw new AgentDefinitionError(
      `${who}: the plan \`returns\` "${returns}", but no node stores that key (for_each nodes store one key per item). Name one of: ${keys.join(", ") || "none — add a node that gathers the result"}.`,
    );
  }

  const tool = as ?? name ?? parsed.name;
  if (typeof tool !== "string" || !TOOL_NAME.test(tool)) {
    throw new AgentDefinitionError(
      `${who}: the tool name must be 1–64 letters, digits, \`_\` or \`-\`, got ${JSON.stringify(tool)}${as === undefined && name === undefined ? " (the plan's name)" : ""}. Give one with \`name: "…"\`.`,
    );
  }
  const text = (description ?? parsed.objective).trim();
  if (text === "") {
    throw new AgentDefinitionError(
      `${who}: needs a \`description\` (or a plan \`objective\`): it is the only thing the calling model reads before deciding to hand work over. Say what the plan does and when to use it.`,
    );
  }
  const declared = parsed.inputs;
  if (declared.type !== undefined && declared.type !== "object") {
    throw new AgentDefinitionError(
      `${who}: the plan's \`inputs\` must describe an object (tool arguments are named), got type ${JSON.stringify(declared.type)}.`,
    );
  }
  let parameters: JsonSchema;
  try {
    parameters = toToolParameters(declared, tool);
  } catch (error) {
    throw new AgentDefinitionError(`${who}: the plan's \`inputs\` must be a JSON Schema object.`, {
      cause: error,
    });
  }

  const target: PlanTarget = Object.freeze({ kind: "deputy.plan", name: parsed.name });
  const binding: PlanBinding = {
    tool,
    description: text,
    parameters,
    budget,
    target,
    plan,
    returns,
    run,
    call: (frame, rawArgs, ctx) => callPlan(frame, binding, rawArgs, ctx),
  };
  return { kind: "deputy.delegate-to", target, bindings: [binding] };
}

/** Validates the plan against the run options' tools, agents and delegates; every error is listed. */
function validPlan(plan: unknown, run: PlanDelegationRunOptions, who: string): ExecutionPlan {
  if (!isObject(plan)) {
    throw new AgentDefinitionError(
      `${who} expects an execution plan (the JSON object, as \`runPlan\` takes it), got ${plan === null ? "null" : Array.isArray(plan) ? "an array" : typeof plan}.`,
    );
  }
  const report = validatePlan(plan, {
    host: run.host,
    nodeTypes: run.nodeTypes,
    knownArtifacts: Object.keys(run.artifacts ?? {}),
  });
  const errors = report.issues.filter((i) => i.severity === "error");
  if (!report.plan || errors.length > 0) {
    const list = errors.map((i) => `${i.nodeId ? `${i.nodeId}: ` : ""}${i.message}`).join("; ");
    throw new AgentDefinitionError(
      `${who}: the plan is invalid (${list}). Fix it, or the options it runs with.`,
    );
  }
  return report.plan;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
