import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { agentResolver } from "../plan/host-capabilities.js";
import type { ExecutionHost } from "../plan/node-executor.js";
import { NodeTypeTable } from "../plan/node-type-table.js";
import { continueRun, newRunId, startRun } from "../plan/run-plan.js";
import { toolNodeType } from "../plan/tool-node-type.js";
import { validatePlan } from "../plan/validate-plan.js";
import type { JsonSchema } from "../schema/json-schema.js";
import type { RunStore } from "../store/run-store.js";
import type { Tool } from "../tools/define-tool.js";
import type { ToolsInput } from "../tools/to-tools.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { authorPlan } from "./author-plan.js";
import { heldForApproval } from "./authored-approval.js";
import type { AuthoredToolCall } from "./authored-plan-policy.js";
import { findNamedPlan } from "./named-plans.js";
import { checkPlanInputs } from "./plan-inputs.js";
import { approveRepair } from "./repair-decisions.js";
import { repairRun } from "./repair-run.js";
import {
  capped,
  issueLines,
  refusal,
  type PendingApprovalAnswer,
  type PlanToolRefusal,
  type RunAnswer,
} from "./plan-tools-answers.js";
import { declarePlanTools, isObject, listPlans, type ExecuteArgs } from "./plan-tools-declarations.js";
import { BackgroundRuns } from "./plan-tools-runs.js";
import { renderRepairDiff } from "./repair-diff.js";

/** Options of {@link planTools}. */
export interface PlanToolsOptions {
  /**
   * The tools plans may use — the boundary: a plan written for an objective sees only these, and every plan
   * run through the toolkit is validated against them (a registry, a list, or a record by name).
   */
  tools: ToolRegistry | ToolsInput;
  /** Where the toolkit's runs are checkpointed, and where `plan_status`, `plan_artifacts` and `plan_resume` look. */
  store: RunStore;
  /**
   * The model that writes a plan for an objective (`plan_execute` with `objective`) and repairs failed runs: an
   * AI SDK model instance. Default: none — those calls are refused with `no_model`; named and given plans run.
   */
  model?: LanguageModelV4 | LanguageModelV3;
  /**
   * Plans that `plan_execute` and `plan_validate` take by name: a folder of plan files (as `deputy run NAME
   * --plans DIR` reads it) or a record of plans by name. Default: none.
   */
  plans?: string | Readonly<Record<string, unknown>>;
  /**
   * Seconds a tool call waits for its run. A run that outlasts it goes on in the background, and the call
   * answers with its run id and where it stands (`done: false`); `plan_status` reads it later. Default 30.
   */
  softTimeout?: number;
  /**
   * Whether `plan_repair` applies a valid delta at once as a child run and runs it (the host's `deputy repair
   * --yes`). Default `false`: the delta stays on the run as a pending repair, for a person to approve in the
   * console's inbox or with `deputy repair RUN_ID --approve` — the calling model never approves its own delta.
   */
  approveRepairs?: boolean;
  /** Repairs allowed per lineage (a run and the children made from it). Default 2. */
  maxRepairRounds?: number;
  /**
   * The confidence floor of a plan written for an objective (see `authorPlan`'s `confidenceFloor`). Default 0.8.
   */
  confidenceFloor?: number;
  /** Longest JSON, in characters, of a value a tool answers with (an artifact); longer ones are previewed. Default 20,000. */
  maxValueChars?: number;
  /** The node types plans may use (the root entry's `planTools` gives the built-in ones). Default: tool nodes only. */
  nodeTypes?: NodeTypeTable;
  /** The host runs get (delegates, agents); its `tools` are replaced by `tools`. Default: tools only. */
  host?: ExecutionHost;
  /** Aborts every run the toolkit started. */
  signal?: AbortSignal;
}

/** What {@link planTools} returns: the tools for an agent, and a way to wait for the runs they left going. */
export interface PlanToolkit {
  /**
   * `plan_execute`, `plan_validate`, `plan_status`, `plan_artifacts`, `plan_resume` and `plan_repair`: deputy tools, for `defineAgent({ tools })` or, through `toAiSdkTools`, `generateText`.
   */
  tools: Tool[];
  /** Resolves once every run the tools started in the background has ended (call before closing the store). */
  settle(): Promise<void>;
}

const DEFAULT_SOFT_TIMEOUT_S = 30;
const DEFAULT_MAX_VALUE_CHARS = 20_000;

/**
 * Gives an agent execution plans as tools: `plan_execute` (a plan written for an objective, a named plan with
 * inputs, or a plan given as JSON), `plan_validate`, `plan_status`, `plan_artifacts`, `plan_resume` and
 * `plan_repair` (a model-written plan delta for the failed nodes, pending a person's approval unless the host
 * sets `approveRepairs`). Each has
 * a strict argument schema (no property it does not list). A run that outlasts the soft timeout answers with
 * its run id and where it stands instead of blocking the agent, and goes on in the background. What cannot be
 * done comes back as data the model can act on (`{ error: "run_not_found", message }`, see
 * `PLAN_TOOL_REFUSALS`), never as an exception into the tool loop.
 *
 * @example
 * const toolkit = planTools({ tools: [fetchAlerts, fileTicket], store, model, plans: "plans/" });
 * const { text } = await generateText({ model, tools: toAiSdkTools(toolkit.tools), stopWhen: isStepCount(8), prompt });
 * await toolkit.settle();
 */
export function planTools(options: PlanToolsOptions): PlanToolkit {
  if (typeof options !== "object" || options === null)
    throw new InvalidOptionError("planTools(options)", "an object", options);
  if (options.store === undefined || typeof options.store.loadSummary !== "function")
    throw new InvalidOptionError("store", "a RunStore", options.store);
  const softTimeout = options.softTimeout ?? DEFAULT_SOFT_TIMEOUT_S;
  if (typeof softTimeout !== "number" || !(softTimeout >= 0) || softTimeout > 86_400)
    throw new InvalidOptionError("softTimeout", "a number of seconds from 0 to 86400", softTimeout);
  const maxChars = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 100)
    throw new InvalidOptionError("maxValueChars", "an integer ≥ 100", maxChars);
  const plans = options.plans;
  if (plans !== undefined && typeof plans !== "string" && (typeof plans !== "object" || plans === null))
    throw new InvalidOptionError("plans", "a folder of plans or a record of plans by name", plans);

  const registry = options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools);
  const nodeTypes = options.nodeTypes ?? new NodeTypeTable([toolNodeType]);
  const base = options.host ?? ({ agents: agentResolver(), budget: undefined } as Partial<ExecutionHost>);
  const host = { ...base, tools: registry } as ExecutionHost;
  const { store, model, signal } = options;
  const runs = new BackgroundRuns(store, softTimeout * 1000, maxChars);

  /** The plan called `name`, or a refusal naming the plans there are. */
  const namedPlan = (name: string): { plan: unknown } | PlanToolRefusal => {
    if (plans === undefined) return refusal("unknown_plan", "This toolkit has no named plans.");
    if (typeof plans !== "string") {
      if (Object.hasOwn(plans, name)) return { plan: plans[name] };
      return refusal(
        "unknown_plan",
        `No plan named "${name}" (plans: ${Object.keys(plans).join(", ") || "none"}).`,
      );
    }
    try {
      return { plan: findNamedPlan(plans, name).plan };
    } catch (error) {
      return refusal("unknown_plan", (error as Error).message);
    }
  };

  /** Validates a plan against the toolkit's tools and node types; errors become `plan_invalid`. */
  const validated = (plan: unknown) => {
    const report = validatePlan(plan, { host, nodeTypes });
    if (report.ok) return { report };
    return {
      refused: refusal(
        "plan_invalid",
        "The plan is invalid. Fix every issue listed and try again, or describe an objective instead.",
        { issues: issueLines(report.issues) },
      ),
    };
  };

  /** Starts a validated plan as a new run, waiting for it up to the soft timeout. */
  const run = (
    plan: unknown,
    report: ReturnType<typeof validatePlan>,
    inputs: Record<string, unknown> | undefined,
    authored?: { objective: string; model: string; allowedTools: string[] },
  ) => {
    const runId = newRunId(new Date());
    return runs.start(runId, report.plan?.returns, () =>
      startRun(plan, {
        host,
        nodeTypes,
        store,
        runId,
        validated: report,
        ...(inputs ? { inputs } : {}),
        ...(signal ? { signal } : {}),
        ...(authored ? { meta: { authored } } : {}),
      }),
    );
  };

  /** Records a written plan as a run kept for a person's approval (no node starts) and says so. */
  const holdForApproval = async (
    written: { plan: Record<string, unknown>; needsApproval: AuthoredToolCall[] },
    report: ReturnType<typeof validatePlan>,
    authored: { objective: string; model: string; allowedTools: string[] },
  ): Promise<PendingApprovalAnswer> => {
    const runId = newRunId(new Date());
    const tools = [...new Set(written.needsApproval.flatMap((c) => c.tools))];
    await startRun(written.plan, {
      host,
      nodeTypes,
      store,
      runId,
      validated: report,
      stop: heldForApproval(),
      meta: { authored: { ...authored, approval: { status: "pending", tools } } },
    });
    return {
      pending_approval: true,
      run_id: runId,
      calls: capped(written.needsApproval, maxChars),
      message: `The plan calls tools with side effects (${tools.join(", ")}); nothing runs until a person approves it (deputy plan --approve ${runId}, or approveAuthoredRun). plan_status reads it; you cannot approve it.`,
    };
  };

  const execute = async (args: ExecuteArgs): Promise<RunAnswer | PendingApprovalAnswer | PlanToolRefusal> => {
    const given = (["objective", "name", "plan"] as const).filter((k) => args[k] !== undefined);
    if (given.length !== 1)
      return refusal(
        "invalid_arguments",
        `Give exactly one of objective, name or plan (got ${given.length ? given.join(", ") : "none"}).`,
      );
    if (args.objective !== undefined) {
      if (args.inputs !== undefined)
        return refusal(
          "invalid_arguments",
          "inputs go with name or plan; with an objective, say the values in the objective.",
        );
      if (!model)
        return refusal(
          "no_model",
          "This toolkit has no model to write plans with; run a named plan or give a plan as JSON.",
        );
      const written = await authorPlan({
        objective: args.objective,
        tools: registry,
        model,
        host,
        nodeTypes,
        ...(options.confidenceFloor !== undefined ? { confidenceFloor: options.confidenceFloor } : {}),
      });
      if (!written.ok)
        return refusal(
          "plan_invalid",
          "The model's plan for this objective is still invalid after one correction round; nothing was run. Reword the objective, or give a plan as JSON.",
          { issues: issueLines(written.issues) },
        );
      const check = validated(written.plan);
      if (check.refused) return check.refused;
      const authored = {
        objective: args.objective,
        model: `${model.provider}/${model.modelId}`,
        // The boundary the plan was written within, so a repair of the run keeps it.
        allowedTools: registry.names(),
      };
      // Calls of tools with side effects wait for a person: the calling model never approves its own plan.
      if (written.needsApproval.length) return holdForApproval(written, check.report, authored);
      return run(written.plan, check.report, undefined, authored);
    }
    let plan: unknown = args.plan;
    if (args.name !== undefined) {
      const found = namedPlan(args.name);
      if ("error" in found) return found;
      plan = found.plan;
    }
    const declared = isObject(plan) && isObject(plan.inputs) ? (plan.inputs as JsonSchema) : undefined;
    let inputs: Record<string, unknown> | undefined;
    if (declared !== undefined || args.inputs !== undefined) {
      inputs = args.inputs ?? {};
      const problems = checkPlanInputs(declared, inputs);
      if (problems.length)
        return refusal("invalid_inputs", "The inputs do not fit the plan's declared inputs.", {
          problems,
          ...(declared ? { declared } : {}),
        });
    }
    const check = validated(plan);
    if (check.refused) return check.refused;
    return run(plan, check.report, inputs);
  };

  const validate = (args: { plan?: Record<string, unknown>; name?: string }) => {
    if ((args.plan === undefined) === (args.name === undefined))
      return refusal("invalid_arguments", "Give exactly one of plan or name.");
    let plan: unknown = args.plan;
    if (args.name !== undefined) {
      const found = namedPlan(args.name);
      if ("error" in found) return found;
      plan = found.plan;
    }
    const report = validatePlan(plan, { host, nodeTypes });
    return {
      valid: report.ok,
      issues: issueLines(report.issues),
      ...(isObject(plan) && plan.inputs !== undefined ? { inputs: plan.inputs } : {}),
    };
  };

  const status = async ({ run_id }: { run_id: string }) => {
    const answer = await runs.answerFor(run_id);
    return answer;
  };

  const artifacts = async ({ run_id, keys }: { run_id: string; keys?: string[] }) => {
    const summary = await store.loadSummary(run_id);
    if (!summary)
      return runs.has(run_id) ? runs.answerFor(run_id) : refusal("run_not_found", notFound(run_id));
    const wanted = keys ?? Object.keys(summary.artifacts);
    const found: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const key of wanted) {
      if (Object.hasOwn(summary.artifacts, key))
        Object.defineProperty(found, key, {
          value: capped(summary.artifacts[key], maxChars),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else missing.push(key);
    }
    return {
      run_id,
      status: summary.run.status,
      artifacts: found,
      ...(missing.length ? { missing } : {}),
    };
  };

  const resume = async ({ run_id }: { run_id: string }) => {
    const summary = await store.loadSummary(run_id);
    if (!summary) return refusal("run_not_found", notFound(run_id));
    if (runs.has(run_id))
      return refusal(
        "run_in_progress",
        `Run ${run_id} is still going on here; call plan_status with its run_id later.`,
      );
    if (summary.run.status === "completed")
      return refusal("run_completed", `Run ${run_id} completed; there is nothing to resume.`);
    if (summary.run.options.authored?.approval?.status === "pending")
      return refusal(
        "approval_pending",
        `Run ${run_id} is a plan awaiting a person's approval; nothing of it runs until a person approves it.`,
      );
    const plan = summary.run.plan as { returns?: unknown } | null;
    return runs.start(run_id, typeof plan?.returns === "string" ? plan.returns : undefined, () =>
      continueRun(run_id, { host, nodeTypes, store, ...(signal ? { signal } : {}) }),
    );
  };

  const repair = async ({ run_id }: { run_id: string }) => {
    if (!model)
      return refusal(
        "no_model",
        "This toolkit has no model to repair runs with; plan_resume retries as it is.",
      );
    if (runs.has(run_id))
      return refusal("run_in_progress", `Run ${run_id} is still going on here; call plan_status later.`);
    const asked = await repairRun(store, run_id, {
      model,
      tools: registry,
      host,
      nodeTypes,
      ...(options.maxRepairRounds !== undefined ? { maxRounds: options.maxRepairRounds } : {}),
      ...(signal ? { signal } : {}),
    });
    const diff = renderRepairDiff(asked.repair.diff ?? [])
      .trimEnd()
      .split("\n");
    if (!asked.ok)
      return refusal(
        "repair_refused",
        "The model's plan delta is still invalid after one correction round; nothing was changed.",
        { repair_id: asked.repair.id, issues: issueLines(asked.issues) },
      );
    if (!options.approveRepairs)
      return {
        run_id,
        repair_id: asked.repair.id,
        status: "pending",
        diff,
        message:
          "The repair awaits a person's approval (the console's inbox, or deputy repair RUN_ID --approve). Once approved, its child run shows in plan_status of this run.",
      };
    const approved = await approveRepair(store, run_id, { repairId: asked.repair.id });
    const child = approved.childRunId;
    const plan = approved.repair.plan as { returns?: unknown } | null;
    const ran = await runs.start(child, typeof plan?.returns === "string" ? plan.returns : undefined, () =>
      continueRun(child, { host, nodeTypes, store, ...(signal ? { signal } : {}) }),
    );
    return { ...ran, repaired_run_id: run_id, repair_id: asked.repair.id, diff };
  };

  const tools = declarePlanTools(
    { execute, validate, status, artifacts, resume, repair },
    { plans: listPlans(plans), approveRepairs: options.approveRepairs === true },
  );
  return { tools, settle: () => runs.settle() };
}

function notFound(runId: string): string {
  return `No run "${runId}" in the store. Use the run_id that plan_execute answered.`;
}
