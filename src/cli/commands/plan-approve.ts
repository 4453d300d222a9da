import { numberOption } from "../number-option.js";
import { approveAuthoredRun } from "../../authoring/authored-approval.js";
import { checkAuthoredPlan, renderApprovalRequest } from "../../authoring/authored-plan-policy.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import { validatePlan } from "../../plan/validate-plan.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { CliContext } from "../cli-context.js";
import { withGracefulStop } from "../graceful-stop.js";
import { createProgress } from "../progress.js";
import { printRunResult } from "../render-manifest.js";
import { leaseFrom, storeHint, storeLabel } from "../run-setup.js";
import {
  createHost,
  openStore,
  runPlan,
  setupRun,
  storeLocation,
  type RunFlags,
} from "../../compose/index.js";

/** The flags `deputy plan --approve` reads (the run flags, as for `deputy plan --run`). */
export interface ApproveFlags extends RunFlags {
  json?: boolean;
  by?: string;
}

/** `--confidence-floor`: a number from 0 to 1, or the library's default when not given. */
export function floorFrom(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return numberOption("--confidence-floor", text, (n) => n >= 0 && n <= 1, "a number from 0 to 1");
}

/**
 * `deputy plan --approve RUN_ID`: a model-written run kept for a person's approval is shown, approved (`--by`,
 * recorded as `flag`) and run with the tools given — within the allowlist it was written for. The plan is
 * validated against those tools before the approval is recorded, so a wrong `--tools` spends nothing.
 */
export async function approvePendingPlan(
  ctx: CliContext,
  runId: string,
  flags: ApproveFlags,
  { grace, lease }: { grace: number; lease: ReturnType<typeof leaseFrom> },
): Promise<void> {
  if (!flags.tools?.length)
    throw new InvalidOptionError(
      "--tools",
      "the tools module or MCP servers the plan was written for",
      undefined,
    );
  const store = openStore(flags.store, { mustExist: true });
  try {
    const summary = await store.loadSummary(runId);
    if (!summary)
      throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${storeLabel(storeLocation(flags.store))}.`, {
        runId,
      });
    const authored = summary.run.options.authored;
    if (authored?.approval?.status !== "pending" || summary.run.error?.code === "APPROVED")
      throw new InvalidOptionError("--approve", "a model-written run awaiting approval", runId);
    const { options, close } = await setupRun(flags);
    try {
      const all = new ToolRegistry(options.tools as ConstructorParameters<typeof ToolRegistry>[0]);
      const names = authored.allowedTools ?? all.names();
      const wiring = {
        ...options,
        tools: new ToolRegistry(all.list().filter((t) => names.includes(t.name))),
        agents: undefined,
      };
      const { host, nodeTypes } = createHost(wiring);
      const report = validatePlan(summary.run.plan, { host, nodeTypes });
      if (!report.ok)
        throw new InvalidOptionError(
          "--tools",
          `the tools run ${runId}'s plan was written for (${report.issues.find((i) => i.severity === "error")?.message ?? "invalid"})`,
          [flags.tools].flat().join(", "),
        );
      // What is approved, shown as the plan holds it now (the calls of tools with side effects).
      const calls = checkAuthoredPlan(summary.run.plan as Record<string, unknown>, report, {
        nodeTypes,
        tools: host.tools,
        floor: 0,
      }).needsApproval;
      if (!flags.json && calls.length) ctx.stderr(renderApprovalRequest(calls));
      const approved = await approveAuthoredRun(store, runId, {
        how: "flag",
        ...(flags.by?.trim() ? { by: flags.by.trim() } : {}),
        ...(lease.ttlMs !== undefined ? { lease: { ttlMs: lease.ttlMs } } : {}),
      });
      if (!flags.json) ctx.stderr(`deputy: approved run ${runId}; running it as run ${approved.runId}\n`);
      const progress = ctx.isTTY && !flags.json ? createProgress(ctx.rawStderr) : undefined;
      const manifest = await withGracefulStop(ctx, grace, (stops) =>
        runPlan(approved.plan, {
          ...wiring,
          store,
          lease,
          runId: approved.runId,
          ...(approved.inputs ? { inputs: approved.inputs } : {}),
          stop: stops.stop,
          signal: stops.signal,
          meta: { ...options.meta, authored: approved.authored },
          ...(progress ? { onEvent: progress.onEvent } : {}),
        }),
      );
      progress?.done();
      printRunResult(ctx, manifest, flags.json, storeHint(flags.store));
    } finally {
      await close();
    }
  } finally {
    await store.close();
  }
}
