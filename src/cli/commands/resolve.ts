import type { Command } from "commander";
import { resolveEscalation, type PersonDecision } from "../../delegate/escalation/resolve-escalation.js";
import { checkDecision } from "../../delegate/escalation/check-decision.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";
import type { CliContext } from "../cli-context.js";
import { storeHint } from "../run-setup.js";
import { openStore } from "../../compose/index.js";

interface ResolveFlags {
  item?: string;
  tools?: string;
  call?: string;
  value?: string;
  skip?: boolean;
  approve?: boolean;
  reject?: boolean;
  reason?: string;
  by?: string;
  store: string;
  json?: boolean;
}

/**
 * `deputy resolve RUN_ID NODE [--item N] (--call JSON | --value JSON | --skip | --approve | --reject [--reason
 * TEXT])`: records a person's decision about an escalated node or item; `deputy resume RUN_ID` then applies it.
 * A supplied call still goes through the accept gate's tool, schema and side-effect checks when the run resumes;
 * `--approve` / `--reject` decide a call that waits for approval (and only such a call).
 */
export function registerResolve(program: Command, ctx: CliContext): void {
  program
    .command("resolve <runId> <node>")
    .description("decide an escalated node or item (or approve a call), then `deputy resume` the run")
    .option("--item <n>", "the for_each item index")
    .option("--call <json>", 'run this call instead: {"name": TOOL, "arguments": {...}}')
    .option("--value <json>", "store this JSON value as the result, running nothing")
    .option("--skip", "mark it skipped, running nothing")
    .option("--approve", "approve the call that waits for approval: it runs on resume")
    .option("--reject", "reject the call that waits for approval: it never runs, the node fails")
    .option("--reason <text>", "why (with --reject; recorded with the decision)")
    .option("--by <name>", "who decides (recorded with the decision)")
    .option(
      "--store <location>",
      "run store: an SQLite file or a postgres:// URL (default: $DEPUTY_STORE, else .deputy/runs.db)",
    )
    .option(
      "--tools <module>",
      "tools module to check a --call against now (default: none; the run's recorded module is never imported)",
    )
    .option("--json", "print the recorded resolution as JSON")
    .action(async (runId: string, nodeId: string, flags: ResolveFlags) => {
      const decision = parseDecision(flags);
      const store = openStore(flags.store, { mustExist: true });
      try {
        // Only a module this command was given: a path from the store is data, never imported.
        const toolsPath = flags.tools;
        const tools = toolsPath ? (await loadToolsModule(toolsPath)).tools : undefined;
        const recorded = await resolveEscalation(store, runId, nodeId, {
          ...decision,
          ...(flags.by?.trim() ? { by: flags.by.trim() } : {}),
          ...(tools ? { tools } : {}),
        });
        const { item, resolution } = recorded;
        if (flags.json) ctx.stdout(JSON.stringify(recorded) + "\n");
        else
          ctx.stdout(
            `Resolved ${nodeId}${item === undefined ? "" : ` item ${item}`} (${resolution.kind}). Continue with: deputy resume ${runId}${flags.store ? ` --store ${storeHint(flags.store)}` : ""}${flags.tools ? ` --tools ${flags.tools}` : ""}\n`,
          );
      } finally {
        await store.close();
      }
    });
}

/** The flags as a decision (JSON parsed here), checked by the one decision check the library and console use. */
function parseDecision(flags: ResolveFlags): PersonDecision {
  const resolution = checkDecision({
    call: flags.call === undefined ? undefined : parseJson("--call", flags.call),
    value: flags.value === undefined ? undefined : parseJson("--value", flags.value),
    skip: flags.skip,
    approve: flags.approve,
    reject: flags.reject,
    reason: flags.reason,
  });
  const item = flags.item === undefined ? {} : { item: parseItem(flags.item) };
  if (resolution.kind === "approve") return { ...item, approve: true };
  if (resolution.kind === "reject")
    return { ...item, reject: true, ...(resolution.reason ? { reason: resolution.reason } : {}) };
  if (resolution.kind === "skip") return { ...item, skip: true };
  if (resolution.kind === "value") return { ...item, value: resolution.value };
  return { ...item, call: resolution.call };
}

function parseJson(option: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionError(option, `valid JSON (${(error as Error).message})`, text);
  }
}

function parseItem(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new InvalidOptionError("--item", "an integer ≥ 0", text);
  return n;
}
