import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { authorPlan, type AuthorPlanResult } from "../../authoring/author-plan.js";
import { approvalOf, heldForApproval } from "../../authoring/authored-approval.js";
import { renderApprovalRequest, type AuthoredToolCall } from "../../authoring/authored-plan-policy.js";
import type { AuthoredApproval } from "../../store/run-options-record.js";
import { confirm } from "../confirm.js";
import { approvePendingPlan, floorFrom, type ApproveFlags } from "./plan-approve.js";
import { modelFromSpec } from "../../authoring/model-spec.js";
import { checkPlanInputs, inputsFromFlags } from "../../authoring/plan-inputs.js";
import type { JsonSchema } from "../../schema/json-schema.js";
import { InputFileError } from "../../errors/input-file-error.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { withGracefulStop } from "../graceful-stop.js";
import { createProgress } from "../progress.js";
import { printRunResult, renderIssues } from "../render-manifest.js";
import { leaseFrom, storeHint } from "../run-setup.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";
import { openStore, setupRun, createHost, runPlan } from "../../compose/index.js";

interface PlanFlags extends ApproveFlags {
  objective?: string;
  model?: string;
  yes?: boolean;
  approve?: string;
  confidenceFloor?: string;
  out?: string;
  run?: boolean;
  allowTool?: string[];
  input?: string[];
  inputs?: string;
  grace?: string;
  leaseTtl?: string;
}

/**
 * `deputy plan`: a model writes a plan for an objective from the tools module's tools (or only those named with
 * `--allow-tool`), validated with one correction round; the plan is printed or written (`--out`), and with
 * `--run` run. A plan still invalid after the correction is one line per issue and exit 2: nothing is written
 * or run. `--input key=value` / `--inputs JSON` give the run its inputs: the plan is written to take them (its
 * `inputs` schema has one required property per key, of the value's JSON type, so the model reads them as
 * `{inputs.key}` instead of copying values into the plan) and run with them. A plan whose tool nodes call tools
 * with side effects is shown and runs only once a person approves it: on a terminal it asks, `--yes` approves
 * without asking; otherwise it is kept as a run awaiting approval (exit 4), which `--approve RUN_ID` approves
 * and runs. The approval, who gave it (`--by`) and how are recorded in the run.
 */
export function registerPlan(program: Command, ctx: CliContext): void {
  withGraceFlag(
    withRunFlags(
      program
        .command("plan")
        .description("ask a model to write a plan for an objective (validated; one correction round)")
        .option("--objective <text>", "what the plan must achieve (required unless --approve)")
        .option(
          "--model <spec>",
          "the model that writes it: scripted=FILE or openai=URL[,model=NAME] (required unless --approve)",
        ),
    ),
  )
    .option(
      "--allow-tool <name>",
      "a tool the plan may use (repeat; default: every tool of --tools)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--input <key=value>",
      "an input the plan takes, with its value for --run (JSON when it parses, else a string); repeat for each",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--inputs <json>", "the plan's inputs and their values, as one JSON object")
    .option("--out <file>", "write the plan to this file (default: print it)")
    .option("--run", "run the plan once it is valid")
    .option("--store <location>", "with --run: the run store (as for `deputy run`)")
    .option("--no-store", "with --run: keep the run in memory only")
    .option("--lease-ttl <seconds>", "with --run: lease length (as for `deputy run`)")
    .option("--json", "print JSON on stdout: the plan and usage, or with --run the manifest")
    .option(
      "--yes",
      "with --run: approve the plan's calls of tools with side effects (shown first) without asking",
    )
    .option(
      "--approve <runId>",
      "approve a model-written run kept for a person's approval, and run it (no model is asked)",
    )
    .option("--by <name>", "who approves (kept with the run)")
    .option(
      "--confidence-floor <n>",
      "the lowest min_confidence a model-written delegate node may have, 0 to 1 (default 0.8)",
    )
    .action(async (flags: PlanFlags) => {
      const grace = graceSeconds(flags.grace);
      const lease = leaseFrom(flags);
      const floor = floorFrom(flags.confidenceFloor);
      if (flags.approve !== undefined) {
        await approvePendingPlan(ctx, flags.approve, flags, { grace, lease });
        return;
      }
      if (!flags.objective?.trim())
        throw new InvalidOptionError("--objective", "what the plan must achieve", flags.objective);
      if (!flags.model) throw new InvalidOptionError("--model", "the model that writes the plan", undefined);
      const objective = flags.objective;
      if (!flags.tools?.length)
        throw new InvalidOptionError(
          "--tools",
          "a tools module or an MCP server (the tools a plan may use)",
          undefined,
        );
      const given = flags.input?.length || flags.inputs !== undefined;
      const inputs = given ? inputsFromFlags(flags.input, flags.inputs) : undefined;
      const { model, label } = await modelFromSpec(flags.model);
      const { options, close } = await setupRun(flags);
      try {
        const all = new ToolRegistry(options.tools as ConstructorParameters<typeof ToolRegistry>[0]);
        const allowedNames = flags.allowTool ?? all.names();
        const unknown = allowedNames.filter((n) => !all.has(n));
        if (unknown.length)
          throw new InvalidOptionError(
            "--allow-tool",
            `a tool of --tools (${all.names().join(", ")})`,
            unknown[0],
          );
        const tools = new ToolRegistry(all.list().filter((t) => allowedNames.includes(t.name)));
        // The allowlist is the boundary for the run too, and agents (with tools of their own) stay out of it.
        const wiring = { ...options, tools, agents: undefined };
        const { host, nodeTypes } = createHost(wiring);
        const declared = inputs ? inputsSchema(inputs) : undefined;
        const result = await authorPlan({
          objective,
          tools,
          model,
          host,
          nodeTypes,
          ...(floor !== undefined ? { confidenceFloor: floor } : {}),
          ...(declared ? { inputs: declared } : {}),
        });
        reportAuthoring(ctx, result, flags);
        if (!result.ok) {
          ctx.setExitCode(EXIT.invalid);
          return;
        }
        if (flags.out) writePlan(flags.out, result.plan);
        if (!flags.run) {
          if (!flags.json && !flags.out) ctx.stdout(JSON.stringify(result.plan, null, 2) + "\n");
          return;
        }
        const approval = await approve(ctx, result.needsApproval, flags);
        if (approval?.status === "pending" && flags.store === false) {
          ctx.stderr(
            "deputy: nothing was run: a plan kept for approval needs a store (drop --no-store), or approve it with --yes\n",
          );
          ctx.setExitCode(EXIT.escalated);
          return;
        }
        const store = openStore(flags.store);
        const held = approval?.status === "pending";
        const progress = ctx.isTTY && !flags.json && !held ? createProgress(ctx.rawStderr) : undefined;
        try {
          const manifest = await withGracefulStop(ctx, grace, (stops) =>
            runPlan(result.plan, {
              ...wiring,
              store,
              lease,
              ...(inputs ? { inputs } : {}),
              // Kept for approval: the run is recorded and no node starts.
              stop: held ? heldForApproval() : stops.stop,
              signal: stops.signal,
              // What `deputy resume` needs, and where the plan came from: the objective and the model.
              meta: {
                ...options.meta,
                ...(flags.out ? { plan: resolve(flags.out) } : {}),
                // The allowlist too: a repair of this run keeps the same boundary; and who approved it.
                authored: {
                  objective,
                  model: label,
                  allowedTools: allowedNames,
                  ...(approval ? { approval } : {}),
                },
              },
              ...(progress ? { onEvent: progress.onEvent } : {}),
            }),
          );
          progress?.done();
          if (held) {
            const hint = storeHint(flags.store);
            if (flags.json)
              ctx.stdout(
                JSON.stringify({ status: "pending_approval", runId: manifest.runId }, null, 2) + "\n",
              );
            else
              ctx.stderr(
                `deputy: kept as run ${manifest.runId}, awaiting a person's approval; nothing was run. Approve and run it with: deputy plan --approve ${manifest.runId} --tools …${hint ? ` --store ${hint}` : ""}\n`,
              );
            ctx.setExitCode(EXIT.escalated);
            return;
          }
          printRunResult(ctx, manifest, flags.json, storeHint(flags.store));
        } finally {
          await store.close();
        }
      } finally {
        await close();
      }
    });
}

/**
 * A person's approval of the plan's calls of tools with side effects, when it has any: shown first, then
 * `--yes` approves, a terminal asks; otherwise it is kept for approval (`pending`). None: nothing to approve.
 */
async function approve(
  ctx: CliContext,
  calls: readonly AuthoredToolCall[],
  flags: PlanFlags,
): Promise<AuthoredApproval | undefined> {
  if (calls.length === 0) return undefined;
  ctx.stderr(renderApprovalRequest(calls));
  const tools = [...new Set(calls.flatMap((c) => c.tools))];
  const by = flags.by?.trim() || undefined;
  if (flags.yes) return approvalOf(tools, "flag", by, new Date());
  if (await confirm(ctx, "Run it? [y/N] ", flags.json)) return approvalOf(tools, "tty", by, new Date());
  return { status: "pending", tools };
}

/** The outcome of authoring: issues one per line (stderr), or a line about the plan; JSON with `--json`. */
function reportAuthoring(ctx: CliContext, result: AuthorPlanResult, flags: PlanFlags): void {
  const usage = `${result.usage.calls} call${result.usage.calls === 1 ? "" : "s"}, ${result.usage.totalTokens} tokens`;
  if (!result.ok) {
    if (flags.json)
      ctx.stdout(
        JSON.stringify({ status: "invalid", issues: result.issues, usage: result.usage }, null, 2) + "\n",
      );
    else
      ctx.stderr(
        renderIssues(result.issues) +
          `deputy: the model's plan is still invalid after one correction (${usage}); nothing was written or run\n`,
      );
    return;
  }
  if (flags.json && !flags.run)
    ctx.stdout(
      JSON.stringify(
        { status: "ok", plan: result.plan, warnings: result.warnings, usage: result.usage },
        null,
        2,
      ) + "\n",
    );
  if (!flags.json) {
    if (result.warnings.length) ctx.stderr(renderIssues(result.warnings));
    const nodes = Array.isArray(result.plan.nodes) ? result.plan.nodes.length : 0;
    ctx.stderr(
      `deputy: plan "${String(result.plan.name)}" (${nodes} node${nodes === 1 ? "" : "s"}) is valid (${usage})${flags.out ? `; written to ${flags.out}` : ""}\n`,
    );
  }
}

/**
 * The `inputs` schema of a plan written for the values given: each key required, typed as its value is (the
 * values are checked against it before the run, as for `deputy run NAME --input`).
 */
function inputsSchema(values: Record<string, unknown>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(values))
    Object.defineProperty(properties, key, {
      value: { type: jsonType(value) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const schema = { type: "object", properties, required: Object.keys(values), additionalProperties: false };
  // The values fit by construction; checked anyway, so a schema this function got wrong is not run with.
  const problems = checkPlanInputs(schema, values);
  if (problems.length) throw new InvalidOptionError("--input", "values of JSON types", problems.join("; "));
  return schema;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value === "object" ? "object" : typeof value;
}

function writePlan(path: string, plan: Record<string, unknown>): void {
  try {
    writeFileSync(path, JSON.stringify(plan, null, 2) + "\n");
  } catch (cause) {
    throw new InputFileError(
      "PLAN_INVALID_FILE",
      `Cannot write the plan to ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
}
