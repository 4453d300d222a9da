import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { renderIssues } from "../render-manifest.js";
import { requireToolsModule } from "../require-tools-module.js";
import { withRunFlags } from "./run.js";
import { validatePlan } from "../../plan/validate-plan.js";
import { setupRun, type RunFlags, readPlanFile, createHost } from "../../compose/index.js";

export function registerValidate(program: Command, ctx: CliContext): void {
  withRunFlags(program.command("validate <plan>").description("check a plan and list every issue"))
    // Accepted so that a `run` command line validates as it is; validating opens no store.
    .option("--store <location>", "accepted as `run` takes it (validate opens no store)")
    .option("--no-store", "accepted as `run` takes it (validate opens no store)")
    .option("--json", "print the issues as JSON on stdout")
    .action(async (planPath: string, flags: RunFlags & { json?: boolean }) => {
      const input = readPlanFile(planPath);
      const { options, close } = await setupRun(flags);
      try {
        const { host, nodeTypes } = createHost(options);
        const report = validatePlan(input, { host, nodeTypes });
        requireToolsModule(report.issues, flags.tools);
        // As `run` prints them: issues on stderr, the result (or --json) on stdout.
        if (flags.json) ctx.stdout(JSON.stringify({ ok: report.ok, issues: report.issues }, null, 2) + "\n");
        else if (report.issues.length) ctx.stderr(renderIssues(report.issues));
        if (!flags.json && report.ok) ctx.stdout(`${planPath}: valid (${report.plan!.nodes.length} nodes)\n`);
        ctx.setExitCode(report.ok ? EXIT.completed : EXIT.invalid);
      } finally {
        await close();
      }
    });
}
