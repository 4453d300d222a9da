import { resolveEscalation, type PersonDecision } from "../../delegate/escalation/resolve-escalation.js";
import type { RunStore } from "../../store/run-store.js";
import type { Resolution } from "../../store/run-state.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";

/**
 * A person's decision: exactly one of `call`, `value` or `skip` (a delegate's escalation), `approve` or `reject`
 * (a call that waits for approval), and who made it — the library's own type.
 */
export type Decision = PersonDecision;

/**
 * The console's side of a person's decision: loads the tools to check a `call` against, then records the decision
 * with the library's `resolveEscalation` (delegate/escalation/), checked exactly as
 * `deputy resolve` checks it: the node or item is escalated, and a call names a candidate and passes the gate's
 * tool, schema and side-effect checks with `toolsPath` (the console's `--tools`, else the run's own module).
 */
export async function recordDecision(
  store: RunStore,
  runId: string,
  nodeId: string,
  decision: Decision,
  toolsPath: string | undefined,
): Promise<Resolution> {
  const tools = decision.call && toolsPath ? (await loadToolsModule(toolsPath)).tools : undefined;
  const recorded = await resolveEscalation(store, runId, nodeId, {
    ...decision,
    ...(tools ? { tools } : {}),
  });
  return recorded.resolution;
}
