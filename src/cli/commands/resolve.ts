import type { Command } from "commander";
import { acceptGate } from "../../delegate/accept-gate.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import type { Resolution, StoredRun } from "../../plan/run-state.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";
import type { CliContext } from "../cli-context.js";
import { DEFAULT_STORE, openStore } from "../run-setup.js";

interface ResolveFlags {
  item?: string;
  tools?: string;
  call?: string;
  value?: string;
  skip?: boolean;
  by?: string;
  store: string;
  json?: boolean;
}

/**
 * `deputy resolve RUN_ID NODE [--item N] (--call JSON | --value JSON | --skip)`: records a person's decision
 * about an escalated node or item; `deputy resume RUN_ID` then applies it. A supplied call still goes through
 * the accept gate's tool, schema and side-effect checks when the run resumes.
 */
export function registerResolve(program: Command, ctx: CliContext): void {
  program
    .command("resolve <runId> <node>")
    .description("decide an escalated delegate node or item, then `deputy resume` the run")
    .option("--item <n>", "the for_each item index")
    .option("--call <json>", 'run this call instead: {"name": TOOL, "arguments": {...}}')
    .option("--value <json>", "store this JSON value as the result, running nothing")
    .option("--skip", "mark it skipped, running nothing")
    .option("--by <name>", "who decides (recorded with the decision)")
    .option("--store <file>", "run store (SQLite file)", DEFAULT_STORE)
    .option("--tools <module>", "tools module to check a --call against now (default: the run's)")
    .option("--json", "print the recorded resolution as JSON")
    .action(async (runId: string, nodeId: string, flags: ResolveFlags) => {
      const resolution: Resolution = {
        ...parseResolution(flags),
        ...(flags.by?.trim() ? { by: flags.by.trim() } : {}),
      };
      const item = flags.item === undefined ? undefined : parseItem(flags.item);
      const store = openStore(flags.store);
      try {
        const stored = await store.load(runId);
        if (!stored) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in ${flags.store}.`, { runId });
        checkEscalated(stored, nodeId, item);
        if (resolution.kind === "call") {
          checkCandidate(stored, nodeId, resolution.call.name);
          await checkCall(stored, nodeId, resolution.call, flags.tools);
        }
        await store.write(runId, [
          { kind: "resolution", nodeId, ...(item === undefined ? {} : { item }), resolution },
        ]);
        const what = `${nodeId}${item === undefined ? "" : ` item ${item}`}`;
        if (flags.json)
          ctx.stdout(
            JSON.stringify({ runId, nodeId, ...(item === undefined ? {} : { item }), resolution }) + "\n",
          );
        else
          ctx.stdout(
            `Resolved ${what} (${resolution.kind}). Continue with: deputy resume ${runId}${flags.store === DEFAULT_STORE ? "" : ` --store ${flags.store}`}\n`,
          );
      } finally {
        await store.close();
      }
    });
}

function parseResolution(flags: ResolveFlags): Resolution {
  const given = [flags.call !== undefined, flags.value !== undefined, flags.skip === true].filter(
    Boolean,
  ).length;
  if (given !== 1)
    throw new InvalidOptionError(
      "resolve",
      "given exactly one of --call, --value or --skip",
      `${given} of them`,
    );
  if (flags.skip) return { kind: "skip" };
  if (flags.value !== undefined) return { kind: "value", value: parseJson("--value", flags.value) };
  const call = parseJson("--call", flags.call!) as { name?: unknown; arguments?: unknown };
  const args = call?.arguments ?? {};
  if (typeof call !== "object" || call === null || typeof call.name !== "string" || call.name === "") {
    throw new InvalidOptionError("--call", '{"name": TOOL, "arguments": {...}}', flags.call);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new InvalidOptionError("--call arguments", "a JSON object", args);
  }
  const extra = Object.keys(call).filter((k) => k !== "name" && k !== "arguments");
  if (extra.length > 0)
    throw new InvalidOptionError("--call", 'an object with only "name" and "arguments"', extra.join(", "));
  return { kind: "call", call: { name: call.name, arguments: args as Record<string, unknown> } };
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

/** Throws a `RESOLUTION_INVALID` error unless the node (or its item) is escalated. */
export function checkEscalated(stored: StoredRun, nodeId: string, item: number | undefined) {
  const runId = stored.run.runId;
  const node = stored.nodes[nodeId];
  const items = Object.values(stored.items[nodeId] ?? {});
  const escalatedItems = items.filter((i) => i.status === "escalated").map((i) => i.index);
  if (!node && items.length === 0) {
    const known = Object.keys(stored.nodes).join(", ") || "(none)";
    throw new RunError("RESOLUTION_INVALID", `Run ${runId} has no node "${nodeId}" (nodes: ${known}).`, {
      runId,
    });
  }
  if (item === undefined) {
    if (node?.status === "escalated" && node.escalation) return;
    const hint = escalatedItems.length
      ? ` Its escalated items: ${escalatedItems.join(", ")} (use --item N).`
      : "";
    throw new RunError(
      "RESOLUTION_INVALID",
      `Node "${nodeId}" of run ${runId} is not escalated (it is ${node?.status ?? "not run"}).${hint}`,
      { runId },
    );
  }
  const record = stored.items[nodeId]?.[item];
  if (record?.status === "escalated" && record.escalation) return;
  throw new RunError(
    "RESOLUTION_INVALID",
    `Item ${item} of "${nodeId}" in run ${runId} is not escalated (it is ${record?.status ?? "not run"}).${escalatedItems.length ? ` Escalated items: ${escalatedItems.join(", ")}.` : ""}`,
    { runId },
  );
}

/** Early feedback: the gate would reject a call to a tool outside the node's candidates anyway. */
export function checkCandidate(stored: StoredRun, nodeId: string, name: string) {
  const nodes = (stored.run.plan as { nodes?: { id?: string; tools?: unknown }[] }).nodes ?? [];
  const tools = nodes.find((n) => n.id === nodeId)?.tools;
  if (Array.isArray(tools) && !tools.includes(name)) {
    throw new InvalidOptionError("--call name", `one of the node's tools (${tools.join(", ")})`, name);
  }
}

/**
 * Early feedback: puts the call through the gate's tool, schema and side-effect checks now, with the run's tools
 * module and host flag, so a mistake shows at once rather than on resume (where the same checks run again).
 * Skipped when the run has no tools module on record.
 */
export async function checkCall(
  stored: StoredRun,
  nodeId: string,
  call: { name: string; arguments: Record<string, unknown> },
  toolsPath: string | undefined,
) {
  const meta = stored.run.options;
  const path = toolsPath ?? (typeof meta.tools === "string" ? meta.tools : undefined);
  if (!path) return;
  const registry = new ToolRegistry((await loadToolsModule(path)).tools);
  const nodes =
    (stored.run.plan as { nodes?: { id?: string; tools?: string[]; allow_side_effects?: boolean }[] })
      .nodes ?? [];
  const node = nodes.find((n) => n.id === nodeId);
  const gate = acceptGate({
    proposal: { ...call, confidence: null, backend: "person", latencyMs: 0 },
    candidates: node?.tools ?? [],
    findTool: (name) => registry.find(name),
    allowSideEffects: {
      node: node?.allow_side_effects === true,
      host: meta.allowDelegateSideEffects === true,
    },
    skipConfidence: true,
    skipGuard: true,
  });
  if (gate.verdict !== "accepted") {
    throw new RunError(
      "RESOLUTION_INVALID",
      `The call would be rejected on resume (${gate.verdict}): ${gate.reason}.`,
      {
        runId: stored.run.runId,
      },
    );
  }
}
