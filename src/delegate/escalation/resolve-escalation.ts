import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { RunError } from "../../errors/run-error.js";
import type { RunCoordinates } from "../../records/delegate-task.js";
import type { Escalation, Resolution } from "../../records/escalation.js";
import type { ToolCall } from "../../records/hop.js";
import type { StoredRun } from "../../store/run-state.js";
import type { RunStore } from "../../store/run-store.js";
import type { ToolsInput } from "../../tools/to-tools.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { acceptGate, CHECKS } from "../accept-gate.js";
import { checkDecision } from "./check-decision.js";

/**
 * A person's decision about an escalated node or item, as the library, `deputy resolve` and the console take it
 * (recorded as a `Resolution`): exactly one of `call`, `value` or `skip` (a delegate's escalation), or `approve` /
 * `reject` (with an optional `reason`) for a call that waits for approval; and who decides.
 */
export type PersonDecision = {
  /** The for_each item index (required for an item's escalation). */
  item?: number;
  /** Who decides (a name the person gives); recorded with the resolution. */
  by?: string;
} & (
  | ({
      call: { name: string; arguments?: Record<string, unknown> };
      value?: never;
      skip?: never;
    } & NoApproval)
  | ({ value: unknown; call?: never; skip?: never } & NoApproval)
  | ({ skip: true; call?: never; value?: never } & NoApproval)
  | { approve: true; call?: never; value?: never; skip?: never; reject?: never; reason?: never }
  | { reject: true; reason?: string; call?: never; value?: never; skip?: never; approve?: never }
);

/** A delegate's decision holds no approval fields. */
type NoApproval = { approve?: never; reject?: never; reason?: never };

/** A person's decision ({@link PersonDecision}) and the tools to check its `call` against now. */
export type EscalationDecision = PersonDecision & {
  /**
   * The tools to check a `call` against now (the same tool, schema and side-effect checks run again on
   * resume). Default: none, and only the node's candidate list is checked now.
   */
  tools?: ToolRegistry | ToolsInput;
};

/** What {@link resolveEscalation} recorded. */
export interface RecordedResolution extends RunCoordinates {
  resolution: Resolution;
}

/**
 * Records a person's decision about an escalated delegate node or item in the run store; resuming the run
 * (`resumeRun`) then applies it: `value` is stored as the result, `skip` marks it skipped, and `call` goes
 * through the accept gate's tool, schema and side-effect checks before it runs. A `call` is checked now too
 * (against the node's candidates, and against `tools` when given) so a mistake shows at once. A call that waits
 * for approval (a tool node's or a delegate's, `Escalation.kind: "approval"`) is decided by `approve` (it runs on
 * resume, exactly the call shown) or `reject` (it never runs: the unit fails with `TOOL_CALL_REJECTED` and the
 * reason); each kind refuses the other's decisions.
 *
 * Throws `RunError` (`RUN_NOT_FOUND`, `RESOLUTION_INVALID`) when the run, node or item is not escalated, the
 * decision is not exactly one of the three ({@link checkDecision}, the check the CLI and the console share) or the
 * call would be rejected.
 *
 * @example
 * await resolveEscalation(store, runId, "triage", { item: 2, call: { name: "page", arguments: { id: "c" } } });
 * await resumeRun(runId, { store, tools });
 */
export async function resolveEscalation(
  store: RunStore,
  runId: string,
  nodeId: string,
  decision: EscalationDecision,
): Promise<RecordedResolution> {
  const resolution: Resolution = {
    ...checkDecision(decision),
    ...(decision.by?.trim() ? { by: decision.by.trim() } : {}),
  };
  const item = decision.item;
  if (item !== undefined && !(Number.isInteger(item) && item >= 0)) {
    throw new InvalidOptionError("item", "an integer ≥ 0", item);
  }
  const stored = await store.load(runId);
  if (!stored) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
  checkKind(stored, nodeId, item, checkEscalated(stored, nodeId, item), resolution);
  if (resolution.kind === "call") checkCall(stored, nodeId, resolution.call, decision.tools);
  const at = item === undefined ? {} : { item };
  await store.write(runId, [{ kind: "resolution", nodeId, ...at, resolution }]);
  return { runId, nodeId, ...at, resolution };
}

/**
 * An approval (`kind: "approval"`) is decided by approve or reject only, and approve/reject decide nothing else:
 * each mistake names the flags that fit.
 */
function checkKind(
  stored: StoredRun,
  nodeId: string,
  item: number | undefined,
  escalation: Escalation,
  resolution: Resolution,
): void {
  const what = item === undefined ? `Node "${nodeId}"` : `Item ${item} of "${nodeId}"`;
  const approval = resolution.kind === "approve" || resolution.kind === "reject";
  if (escalation.kind === "approval" && !approval) {
    throw new RunError(
      "RESOLUTION_INVALID",
      `${what} in run ${stored.run.runId} waits for approval of its call to "${escalation.call?.name ?? "?"}": decide it with approve or reject (--approve | --reject [--reason TEXT]).`,
      { runId: stored.run.runId },
    );
  }
  if (escalation.kind !== "approval" && approval) {
    throw new RunError(
      "RESOLUTION_INVALID",
      `${what} in run ${stored.run.runId} is not waiting for approval (it escalated: ${escalation.verdict}): decide it with a call, a value or skip (--call | --value | --skip).`,
      { runId: stored.run.runId },
    );
  }
}

function checkEscalated(stored: StoredRun, nodeId: string, item: number | undefined): Escalation {
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
    if (node?.status === "escalated" && node.escalation) return node.escalation;
    if (escalatedItems.length) {
      // A for_each node is escalated through its items ("not escalated (it is escalated)" would say nothing).
      throw new RunError(
        "RESOLUTION_INVALID",
        `Node "${nodeId}" of run ${runId} has escalated items (${escalatedItems.join(", ")}): decide each one by its item (--item N).`,
        { runId },
      );
    }
    throw new RunError(
      "RESOLUTION_INVALID",
      `Node "${nodeId}" of run ${runId} is not escalated (it is ${node?.status ?? "not run"}).`,
      { runId },
    );
  }
  const record = stored.items[nodeId]?.[item];
  if (record?.status === "escalated" && record.escalation) return record.escalation;
  throw new RunError(
    "RESOLUTION_INVALID",
    `Item ${item} of "${nodeId}" in run ${runId} is not escalated (it is ${record?.status ?? "not run"}).${escalatedItems.length ? ` Escalated items: ${escalatedItems.join(", ")}.` : ""}`,
    { runId },
  );
}

/**
 * Early feedback: a call outside the node's candidates is refused at once; with `tools`, the call also goes
 * through the gate's tool, schema and side-effect checks now, with the run's recorded host flag.
 */
function checkCall(
  stored: StoredRun,
  nodeId: string,
  call: ToolCall,
  tools: ToolRegistry | ToolsInput | undefined,
): void {
  const nodes =
    (stored.run.plan as { nodes?: { id?: string; tools?: unknown; allow_side_effects?: unknown }[] }).nodes ??
    [];
  const node = nodes.find((n) => n.id === nodeId);
  const candidates = Array.isArray(node?.tools) ? (node.tools as string[]) : [];
  if (!candidates.includes(call.name)) {
    throw new InvalidOptionError(
      "call.name",
      `one of the node's tools (${candidates.join(", ")})`,
      call.name,
    );
  }
  if (tools === undefined) return;
  const registry = tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
  const gate = acceptGate({
    proposal: { ...call, confidence: null, backend: "person", latencyMs: 0 },
    candidates,
    findTool: (name) => registry.find(name),
    allowSideEffects: {
      node: node?.allow_side_effects === true,
      host: stored.run.options.allowDelegateSideEffects === true,
    },
    // The same policy the unit judges the call with on resume (apply-resolution.ts): a person's.
    checks: CHECKS.person,
  });
  if (gate.verdict !== "accepted") {
    throw new RunError(
      "RESOLUTION_INVALID",
      `The call would be rejected on resume (${gate.verdict}): ${gate.reason}.`,
      { runId: stored.run.runId },
    );
  }
}
