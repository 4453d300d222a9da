import type { Command } from "commander";
import { findNamedPlan } from "../../authoring/named-plans.js";
import { checkPlanInputs, inputsFromFlags } from "../../authoring/plan-inputs.js";

/** The flags of `deputy run` for named plans with inputs. */
export interface NamedPlanFlags {
  plans?: string;
  input?: string[];
  inputs?: string;
}

/** A plan ready to run: where it came from, its JSON, the inputs to run it with, and what is wrong with them. */
export interface PlanToRun {
  path: string;
  plan: unknown;
  inputs: Record<string, unknown> | undefined;
  /** One line per problem with the inputs; the plan must not run unless this is empty. */
  problems: string[];
}

/** Adds `--plans DIR`, `--input key=value` (repeatable) and `--inputs JSON`. */
export function withNamedPlanFlags(cmd: Command): Command {
  return cmd
    .option("--plans <dir>", "a folder of plans: <plan> is then a plan's name (its `name`, or its file name)")
    .option(
      "--input <key=value>",
      "a value for one of the plan's declared inputs (JSON when it parses, else a string); repeat for each",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--inputs <json>", "the values of the plan's declared inputs, as one JSON object");
}

/**
 * The plan `deputy run` runs: the one named `plan` in `--plans`, else the file `plan` (read with `readFile`).
 * Inputs are checked against the plan's declared `inputs` whenever it declares some or some are given: every
 * required one supplied, none unknown, each fitting its schema.
 */
export function resolvePlanToRun(
  plan: string,
  flags: NamedPlanFlags,
  readFile: (path: string) => unknown,
): PlanToRun {
  const found = flags.plans ? findNamedPlan(flags.plans, plan) : { path: plan, plan: readFile(plan) };
  const given = flags.input?.length || flags.inputs !== undefined;
  const declared = declaredInputs(found.plan);
  if (!given && declared === undefined) return { ...found, inputs: undefined, problems: [] };
  const inputs = inputsFromFlags(flags.input, flags.inputs);
  return { ...found, inputs, problems: checkPlanInputs(declared, inputs) };
}

/** What `runPlan` takes from a plan to run besides the plan: its inputs, when it has some. */
export function namedPlanArgs(plan: PlanToRun): { inputs?: Record<string, unknown> } {
  return plan.inputs ? { inputs: plan.inputs } : {};
}

function declaredInputs(plan: unknown): Record<string, unknown> | undefined {
  if (typeof plan !== "object" || plan === null || Array.isArray(plan)) return undefined;
  const inputs = (plan as Record<string, unknown>).inputs;
  return typeof inputs === "object" && inputs !== null && !Array.isArray(inputs)
    ? (inputs as Record<string, unknown>)
    : undefined;
}
