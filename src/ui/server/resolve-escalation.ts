import { checkCall, checkCandidate, checkEscalated } from "../../cli/commands/resolve.js";
import { RunError } from "../../errors/run-error.js";
import type { RunStore } from "../../plan/run-store.js";
import type { Resolution } from "../../plan/run-state.js";

/** A person's decision: exactly one of `call`, `value` or `skip`, and who made it. */
export type Decision = {
  item?: number;
  by?: string;
} & (
  | { call: { name: string; arguments: Record<string, unknown> }; value?: never; skip?: never }
  | { value: unknown; call?: never; skip?: never }
  | { skip: true; call?: never; value?: never }
);

/**
 * Records a decision about an escalated node or item, checked exactly as `deputy resolve` checks it (the node
 * or item is escalated; a call names a candidate and passes the gate's tool, schema and side-effect checks with
 * the run's tools). The run is then resumed separately.
 *
 * An adapter over the CLI's checks until the library's own `resolveEscalation` lands; the console calls only this.
 */
export async function resolveEscalation(
  store: RunStore,
  runId: string,
  nodeId: string,
  decision: Decision,
  options: { tools?: string } = {},
): Promise<Resolution> {
  const stored = await store.load(runId);
  if (!stored) throw new RunError("RUN_NOT_FOUND", `No run "${runId}" in the store.`, { runId });
  checkEscalated(stored, nodeId, decision.item);
  const by = decision.by ? { by: decision.by } : {};
  let resolution: Resolution;
  if (decision.call) {
    checkCandidate(stored, nodeId, decision.call.name);
    await checkCall(stored, nodeId, decision.call, options.tools);
    resolution = { kind: "call", call: decision.call, ...by };
  } else if (decision.skip) resolution = { kind: "skip", ...by };
  else resolution = { kind: "value", value: decision.value, ...by };
  await store.write(runId, [
    {
      kind: "resolution",
      nodeId,
      ...(decision.item === undefined ? {} : { item: decision.item }),
      resolution,
    },
  ]);
  return resolution;
}
