import { planFingerprint } from "../plan/fingerprint.js";
import type { RunOptionsRecord } from "../store/run-options-record.js";
import type { ItemRecord, RepairRecord, RunRecord, StoredRun } from "../store/run-state.js";
import type { RunMutation } from "../store/run-store.js";

/** Node statuses whose nodes completed: kept in the child as they are. */
const COMPLETED_ITEMS: readonly ItemRecord["status"][] = ["ok", "skipped"];

/**
 * The child run of an approved repair: its header (the patched plan, the parent's options, the lineage) and its
 * initial state, which is a **copy** of the parent's completed work — every node that is neither replaced nor
 * downstream of a replaced one (its record and artifacts), and every completed item, also of a replaced
 * for_each node (its `skip_existing` is protected, so the items it stores are the ones resume reuses).
 *
 * Copied rather than referenced: the child is then an ordinary run that every store, `deputy resume`, the
 * console and `deputy runs prune` read with no lineage walk, and pruning or losing the parent never changes
 * what the child holds. The cost is one more copy of the completed artifacts, written once.
 *
 * The child starts `interrupted` — ready for `resumeRun`, which runs only the nodes without a completed record.
 */
export function childRun(
  parent: StoredRun,
  repair: RepairRecord & { plan: unknown; childRunId: string },
  now: Date,
  options: Partial<RunOptionsRecord> = {},
): { run: RunRecord; initial: RunMutation[] } {
  const replaced = new Set(
    (repair.delta?.nodes ?? []).map((n) => (n as { id?: unknown }).id).filter((id) => typeof id === "string"),
  );
  const affected = downstream(repair.plan, replaced as Set<string>);
  const { plan: _planFile, ...parentOptions } = parent.run.options;
  const run: RunRecord = {
    runId: repair.childRunId,
    planName: String((repair.plan as { name?: unknown }).name ?? parent.run.planName),
    fingerprint: planFingerprint(repair.plan),
    plan: repair.plan,
    status: "interrupted",
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    // The plan file the parent ran from no longer matches the child's plan: the store holds the child's.
    options: { ...parentOptions, ...options },
    parentRunId: parent.run.runId,
    rootRunId: parent.run.rootRunId ?? parent.run.runId,
  };
  const initial: RunMutation[] = [];
  const itemKeys = new Set<string>();
  for (const items of Object.values(parent.items))
    for (const item of Object.values(items)) if (item.key !== undefined) itemKeys.add(item.key);
  const droppedKeys = new Set<string>();
  for (const [nodeId, record] of Object.entries(parent.nodes)) {
    if (affected.has(nodeId)) for (const key of record.storedKeys) droppedKeys.add(key);
    else initial.push({ kind: "node", nodeId, record });
  }
  for (const [key, value] of Object.entries(parent.artifacts))
    if (!itemKeys.has(key) && !droppedKeys.has(key)) initial.push({ kind: "artifact", key, value });
  for (const [nodeId, items] of Object.entries(parent.items)) {
    for (const item of Object.values(items)) {
      if (affected.has(nodeId) && !COMPLETED_ITEMS.includes(item.status)) continue;
      initial.push(
        item.key !== undefined && Object.hasOwn(parent.artifacts, item.key)
          ? { kind: "item", nodeId, item, value: parent.artifacts[item.key] }
          : { kind: "item", nodeId, item },
      );
    }
  }
  return { run, initial };
}

/** The replaced nodes and everything that depends on them, directly or not. */
function downstream(plan: unknown, replaced: ReadonlySet<string>): Set<string> {
  const nodes = (plan as { nodes?: { id?: unknown; depends_on?: unknown }[] }).nodes ?? [];
  const affected = new Set(replaced);
  for (let grew = true; grew;) {
    grew = false;
    for (const node of nodes) {
      if (typeof node.id !== "string" || affected.has(node.id) || !Array.isArray(node.depends_on)) continue;
      if (node.depends_on.some((d) => affected.has(d as string))) {
        affected.add(node.id);
        grew = true;
      }
    }
  }
  return affected;
}
