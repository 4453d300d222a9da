import { resolve } from "node:path";
import type { Command } from "commander";
import { modelFromSpec } from "../../authoring/model-spec.js";
import { renderRepairDiff } from "../../authoring/repair-diff.js";
import { approveRepair, rejectRepair } from "../../authoring/repair-decisions.js";
import { repairRun, type RepairRunResult } from "../../authoring/repair-run.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import type { RunOptionsRecord } from "../../store/run-options-record.js";
import type { RunStore } from "../../store/run-store.js";
import type { CliContext } from "../cli-context.js";
import { confirm } from "../confirm.js";
import { EXIT } from "../exit-codes.js";
import { printRunResult, renderIssues } from "../render-manifest.js";
import { leaseFrom, storeHint, storeLabel } from "../run-setup.js";
import { isMcpSpec } from "../../mcp/mcp-source-spec.js";
import { resumeFromFlags } from "./resume.js";
import { graceSeconds, withGraceFlag, withRunFlags } from "./run.js";
import {
  absoluteSpec,
  openStore,
  setupRun,
  storeLocation,
  toolSourcesOf,
  toolsForResume,
  type RunFlags,
  createHost,
} from "../../compose/index.js";

interface RepairFlags extends RunFlags {
  model?: string;
  allowTool?: string[];
  yes?: boolean;
  approve?: boolean;
  reject?: boolean;
  reason?: string;
  by?: string;
  maxRounds?: string;
  json?: boolean;
  recordedTools?: boolean;
  leaseTtl?: string;
  grace?: string;
}

/**
 * `deputy repair RUN_ID`: a model writes a plan delta that replaces the failed run's failed nodes; a valid one
 * is shown as a diff and, with `--yes` (or "y" on a terminal), applied as a child run at once, else kept as a
 * pending repair for `--approve` (or `--reject`). A refusal is one line and exit 2, and changes nothing.
 */
export function registerRepair(program: Command, ctx: CliContext): void {
  withGraceFlag(
    withRunFlags(
      program
        .command("repair <runId>")
        .description(
          "ask a model for a plan delta that replaces a failed run's failed nodes; apply it as a child run",
        )
        .option(
          "--model <spec>",
          "the model that writes the delta: scripted=FILE or openai=URL[,model=NAME]",
        ),
    ),
  )
    .option(
      "--allow-tool <name>",
      "a tool a replaced node may use (repeat; default: an authored run's allowlist, else every tool of --tools)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option("--yes", "apply a valid delta at once, as a child run, and run it")
    .option("--approve", "apply the run's pending repair as a child run, and run it (no model is asked)")
    .option("--reject", "reject the run's pending repair (no model is asked)")
    .option("--reason <text>", "with --reject: why, kept with the repair")
    .option("--by <name>", "who approves or rejects (kept with the repair)")
    .option("--max-rounds <n>", "repairs allowed per lineage (default 2)")
    .option("--lease-ttl <seconds>", "lease length while the run is held (as for `deputy run`)")
    .option(
      "--recorded-tools",
      "without --tools: load the tool sources the run's record names (modules imported, commands started; listed first)",
    )
    .option("--json", "print JSON on stdout: the repair, or with --yes/--approve the child run's manifest")
    .action(async (runId: string, flags: RepairFlags) => {
      const chosen = [flags.yes, flags.approve, flags.reject].filter(Boolean).length;
      if (chosen > 1)
        throw new InvalidOptionError("--yes/--approve/--reject", "at most one of them", "several");
      const grace = graceSeconds(flags.grace);
      const maxRounds = roundsFrom(flags.maxRounds);
      const lease = leaseFrom(flags);
      const store = openStore(flags.store, { mustExist: true });
      const hint = storeHint(flags.store);
      const storeFlag = hint ? ` --store ${hint}` : "";
      try {
        if (flags.reject) {
          const repair = await rejectRepair(store, runId, {
            ...decider(flags),
            ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
            lease,
          });
          ctx.stdout(
            flags.json
              ? JSON.stringify({ status: "rejected", repair }, null, 2) + "\n"
              : `Rejected repair ${repair.id} of run ${runId}.\n`,
          );
          return;
        }
        if (!flags.approve) {
          const result = await askForRepair(store, runId, flags, maxRounds, lease, ctx.stderr);
          report(ctx, result, flags);
          if (!result.ok) {
            ctx.setExitCode(EXIT.invalid);
            return;
          }
          if (!(flags.yes || (await confirm(ctx, "Apply it as a child run now? [y/N] ", flags.json)))) {
            if (!flags.json)
              ctx.stderr(
                `deputy: kept as pending repair ${result.repair.id} of run ${runId}; apply it with: deputy repair ${runId} --approve${storeFlag}\n`,
              );
            else ctx.stdout(JSON.stringify({ status: "pending", repair: result.repair }, null, 2) + "\n");
            return;
          }
        }
        const approved = await approveRepair(store, runId, {
          ...decider(flags),
          lease,
          options: childOverrides(flags),
        });
        if (!flags.json)
          ctx.stderr(
            `deputy: applied repair ${approved.repair.id} as run ${approved.childRunId} (child of ${runId}); running it\n`,
          );
        // The child runs as any resumed run: the flags given here in place of what it recorded.
        const manifest = await resumeFromFlags(ctx, store, approved.childRunId, flags, { lease, grace });
        printRunResult(ctx, manifest, flags.json, hint, flags.tools);
      } finally {
        await store.close();
      }
    });
}

/**
 * Loads the tools (the flags', or with `--recorded-tools` the record's, announced first: never the store's
 * silently) and the delegates, and asks the model for a delta.
 */
async function askForRepair(
  store: RunStore,
  runId: string,
  flags: RepairFlags,
  maxRounds: number | undefined,
  lease: ReturnType<typeof leaseFrom>,
  announce: (text: string) => void,
): Promise<RepairRunResult> {
  const summary = await store.loadSummary(runId);
  if (!summary)
    throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${storeLabel(storeLocation(flags.store))}.`, {
      runId,
    });
  const recorded = summary.run.options;
  const spec = flags.model ? await modelFromSpec(flags.model) : undefined;
  const tools = toolsForResume(runId, recorded, flags);
  if (tools.recorded) announce(tools.announcement);
  const { options, close } = await setupRun({
    tools: tools.sources,
    ...(tools.recorded && recorded.cwd ? { cwd: recorded.cwd } : {}),
    delegate: flags.delegate ?? recorded.delegates,
    // The host's own flag: a record cannot allow side effects.
    allowDelegateSideEffects: flags.allowDelegateSideEffects === true,
    ...(flags.mcpHeader ? { mcpHeader: flags.mcpHeader } : {}),
    ...(flags.mcpHeadersFile !== undefined ? { mcpHeadersFile: flags.mcpHeadersFile } : {}),
  });
  try {
    const { host, nodeTypes } = createHost(options);
    return await repairRun(store, runId, {
      model: spec?.model,
      ...(spec ? { modelLabel: spec.label } : {}),
      tools: host.tools,
      ...(flags.allowTool ? { allowedTools: flags.allowTool } : {}),
      ...(maxRounds !== undefined ? { maxRounds } : {}),
      host,
      nodeTypes,
      ...(lease.ttlMs !== undefined ? { lease: { ttlMs: lease.ttlMs } } : {}),
    });
  } finally {
    await close();
  }
}

/** The diff on stdout and a line on stderr, or the refused delta's issues; JSON with `--json`. */
function report(ctx: CliContext, result: RepairRunResult, flags: RepairFlags): void {
  const u = result.usage;
  const usage = `${u.calls} call${u.calls === 1 ? "" : "s"}, ${u.totalTokens} tokens`;
  if (!result.ok) {
    if (flags.json)
      ctx.stdout(
        JSON.stringify({ status: "invalid", repair: result.repair, issues: result.issues }, null, 2) + "\n",
      );
    else
      ctx.stderr(
        renderIssues(result.issues) +
          `deputy: the model's delta is still refused after one correction (${usage}); the run is unchanged and the round is spent\n`,
      );
    return;
  }
  if (flags.json) return;
  ctx.stdout(renderRepairDiff(result.repair.diff ?? []));
  ctx.stderr(`deputy: repair ${result.repair.id} (round ${result.repair.round}) is valid (${usage})\n`);
}

/** What the child records instead of the parent's: the tools and delegates this repair was checked with. */
function childOverrides(flags: RepairFlags): Partial<Omit<RunOptionsRecord, "version">> {
  return {
    ...toolsRecord(toolSourcesOf(flags.tools)),
    ...(flags.delegate?.length ? { delegates: flags.delegate.map(absoluteSpec) } : {}),
  };
}

/** `--tools` values as a run records them (see setupRun): the first module as `tools`, MCP servers in `toolSources`. */
function toolsRecord(sources: string[]): Partial<Omit<RunOptionsRecord, "version">> {
  const absolute = sources.map((s) => (isMcpSpec(s) ? s : resolve(s)));
  const modules = absolute.filter((s) => !isMcpSpec(s));
  return {
    ...(modules.length ? { tools: modules[0] } : {}),
    ...(absolute.length > 1 || absolute.some(isMcpSpec) ? { toolSources: absolute } : {}),
  };
}

function decider(flags: RepairFlags): { by?: string } {
  return flags.by?.trim() ? { by: flags.by.trim() } : {};
}

function roundsFrom(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 100)
    throw new InvalidOptionError("--max-rounds", "a whole number from 0 to 100", text);
  return n;
}
