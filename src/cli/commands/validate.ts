import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";
import { renderIssues } from "../render-manifest.js";
import { withRunFlags } from "./run.js";
import { validatePlan } from "../../plan/validate-plan.js";
import { setupRun, type RunFlags, readPlanFile, createHost, toolSourcesOf } from "../../compose/index.js";

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
        const checked = validatePlan(input, { host, nodeTypes });
        // Without --tools the structure alone is checked: every tool is unknown then, which says nothing.
        const toolsGiven = toolSourcesOf(flags.tools).length > 0;
        const issues = toolsGiven ? checked.issues : checked.issues.filter((i) => i.code !== "unknown_tool");
        const ok = issues.every((i) => i.severity !== "error");
        // As `run` prints them: issues on stderr, the result (or --json) on stdout.
        if (flags.json)
          ctx.stdout(
            JSON.stringify({ ok, issues, ...(toolsGiven ? {} : { toolsChecked: false }) }, null, 2) + "\n",
          );
        else if (issues.length) ctx.stderr(renderIssues(issues));
        // ok: the plan's header parsed, so `nodes` is a list (the report keeps no plan while any issue stands).
        const nodes = (input as { nodes: unknown[] }).nodes;
        if (!flags.json && ok)
          ctx.stdout(
            toolsGiven
              ? `${planPath}: valid (${nodes.length} nodes)\n`
              : `${planPath}: structure valid (${nodes.length} nodes); tools not checked: pass --tools MODULE (or mcp:…) to check them\n`,
          );
        ctx.setExitCode(ok ? EXIT.completed : EXIT.invalid);
      } finally {
        await close();
      }
    });
}
