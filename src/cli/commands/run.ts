import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { createProgress } from "../progress.js";
import { readPlanFile } from "../read-plan-file.js";
import { exitCodeFor, renderIssues, renderManifest } from "../render-manifest.js";
import { openStore, setupRun, type RunFlags } from "../run-setup.js";
import { createHost, runPlan } from "../../index.js";
import { validatePlan } from "../../plan/validate-plan.js";

/** Options every command that loads tools and delegates shares. */
export function withRunFlags(cmd: Command): Command {
  return cmd
    .option("--tools <module>", "ES module (.js, .mjs or .ts) exporting the tools (and agents)")
    .option(
      "--delegate <spec>",
      "delegate backend, KIND=VALUE (e.g. scripted=FILE, local=MODEL.gguf, llama-server=URL); repeat to build a chain",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--traces <file>", "append delegate traces (JSONL) to this file")
    .option("--allow-delegate-side-effects", "host key of the side-effect double key");
}

export function registerRun(program: Command, ctx: CliContext): void {
  withRunFlags(program.command("run <plan>").description("validate and run a plan"))
    .option("--store <file>", "run store (SQLite file)", ".deputy/runs.db")
    .option("--no-store", "keep the run in memory only (no checkpoints on disk, no resume)")
    .option("--json", "print the manifest as JSON on stdout")
    .action(async (planPath: string, flags: RunFlags & { json?: boolean }) => {
      const input = readPlanFile(planPath);
      const { options, close } = await setupRun(flags);
      try {
        const { host, executors } = createHost(options);
        // Validated once: the report is handed to the run, which does not validate again.
        const report = validatePlan(input, { host, executors });
        if (!report.ok) {
          (flags.json ? ctx.stdout : ctx.stderr)(
            flags.json
              ? JSON.stringify({ status: "invalid", issues: report.issues }, null, 2) + "\n"
              : renderIssues(report.issues),
          );
          ctx.setExitCode(EXIT.invalid);
          return;
        }
        if (report.issues.length && !flags.json) ctx.stderr(renderIssues(report.issues));
        const store = openStore(flags.store);
        const progress = ctx.isTTY && !flags.json ? createProgress(ctx.stderr) : undefined;
        try {
          const manifest = await runPlan(input, {
            ...options,
            store,
            validated: report,
            meta: { ...options.meta, plan: resolve(planPath) },
            ...(progress ? { onEvent: progress.onEvent } : {}),
          });
          progress?.done();
          ctx.stdout(
            flags.json
              ? JSON.stringify(manifest, null, 2) + "\n"
              : renderManifest(manifest, flags.store === false ? undefined : flags.store),
          );
          ctx.setExitCode(exitCodeFor(manifest.status));
        } finally {
          await store.close();
        }
      } finally {
        await close();
      }
    });
}
