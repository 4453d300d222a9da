import type { ItemRecord, NodeRecord, Resolution, RunRecord, RunStatus, StoredRun } from "./run-state.js";
import type { SerializedError } from "../errors/deputy-error.js";
import { dataMap, setOwn } from "../runtime/own.js";

/** One change to a run's durable state. A store applies a batch of them atomically. */
export type RunMutation =
  | { kind: "artifact"; key: string; value: unknown }
  | { kind: "node"; nodeId: string; record: NodeRecord }
  /** An item's record; with `value`, also the artifact `item.key` (one row, so one write per item). */
  | { kind: "item"; nodeId: string; item: ItemRecord; value?: unknown }
  | { kind: "status"; status: RunStatus; updatedAt: string; error?: SerializedError }
  | { kind: "resolution"; nodeId: string; item?: number; resolution: Resolution };

/**
 * Where checkpoints go. Every implementation passes `test/run-store-suite.ts`.
 *
 * `write` returns once the batch is durable; stores may group concurrent batches into one commit (the SQLite
 * store does), so awaiting each write costs about one commit per group, not per batch.
 */
export interface RunStore {
  createRun(run: RunRecord): Promise<void>;
  write(runId: string, batch: RunMutation[]): Promise<void>;
  load(runId: string): Promise<StoredRun | undefined>;
  /** Newest first. */
  list(options?: { limit?: number }): Promise<RunRecord[]>;
  close(): Promise<void>;
}

/** Applies a batch to an in-memory {@link StoredRun} (shared by stores that keep a copy in memory). */
export function applyMutations(state: StoredRun, batch: RunMutation[]): void {
  for (const m of batch) {
    switch (m.kind) {
      case "artifact":
        setOwn(state.artifacts, m.key, m.value);
        break;
      case "node":
        state.nodes[m.nodeId] = m.record;
        break;
      case "item":
        (state.items[m.nodeId] ??= dataMap())[m.item.index] = m.item;
        if ("value" in m && m.item.key !== undefined) setOwn(state.artifacts, m.item.key, m.value);
        break;
      case "status":
        state.run = { ...state.run, status: m.status, updatedAt: m.updatedAt, error: m.error };
        break;
      case "resolution":
        applyResolution(state, m.nodeId, m.item, m.resolution);
        break;
    }
  }
}

function applyResolution(state: StoredRun, nodeId: string, item: number | undefined, resolution: Resolution) {
  if (item === undefined) {
    const node = state.nodes[nodeId];
    if (node?.escalation) state.nodes[nodeId] = { ...node, escalation: { ...node.escalation, resolution } };
    return;
  }
  const record = state.items[nodeId]?.[item];
  if (record?.escalation) {
    state.items[nodeId]![item] = { ...record, escalation: { ...record.escalation, resolution } };
  }
}
