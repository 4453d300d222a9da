import type { DatabaseSync } from "node:sqlite";
import type { RunMutation } from "./run-store.js";
import { withRepair } from "./run-store.js";
import type { ItemRecord, NodeRecord, RepairRecord, RunRecord } from "./run-state.js";
import { readRunOptions } from "./run-options-record.js";

/**
 * The SQLite run store's rows: its prepared statements, how a mutation becomes rows, and how a `runs` row reads
 * back as a record. {@link SqliteRunStore} keeps the rest (group commit, leases, pruning, closing).
 */
export type RunStatements = ReturnType<typeof prepareRunStatements>;

/** Prepares the statements of a run store on `db` (once per store: a write reuses them). */
export function prepareRunStatements(db: DatabaseSync) {
  return {
    insertRun: db.prepare(
      `INSERT INTO runs (run_id, plan_name, fingerprint, plan, status, created_at, updated_at, options,
         parent_run_id, root_run_id, repairs)
       VALUES (@runId, @planName, @fingerprint, @plan, @status, @createdAt, @updatedAt, @options,
         @parentRunId, @rootRunId, @repairs)`,
    ),
    getRepairs: db.prepare(`SELECT repairs FROM runs WHERE run_id = ?`),
    setRepairs: db.prepare(`UPDATE runs SET repairs = ? WHERE run_id = ?`),
    status: db.prepare(
      `UPDATE runs SET status = ?, updated_at = ?, error = ?, event_seq = coalesce(?, event_seq) WHERE run_id = ?`,
    ),
    artifact: db.prepare(`INSERT OR REPLACE INTO artifacts (run_id, key, value) VALUES (?, ?, ?)`),
    node: db.prepare(`INSERT OR REPLACE INTO nodes (run_id, node_id, record) VALUES (?, ?, ?)`),
    item: db.prepare(
      `INSERT OR REPLACE INTO items (run_id, node_id, idx, record, key, value, status, spend)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    itemRecord: db.prepare(`UPDATE items SET record = ? WHERE run_id = ? AND node_id = ? AND idx = ?`),
    getRun: db.prepare(`SELECT * FROM runs WHERE run_id = ?`),
    getNode: db.prepare(`SELECT record FROM nodes WHERE run_id = ? AND node_id = ?`),
    getItem: db.prepare(`SELECT record FROM items WHERE run_id = ? AND node_id = ? AND idx = ?`),
    artifacts: db.prepare(`SELECT key, value FROM artifacts WHERE run_id = ?`),
    nodes: db.prepare(`SELECT node_id, record FROM nodes WHERE run_id = ?`),
    items: db.prepare(`SELECT node_id, record, key, value FROM items WHERE run_id = ? ORDER BY node_id, idx`),
    // Both answered from the items_by_status index alone (it holds status and spend): no record is parsed.
    itemCounts: db.prepare(
      `SELECT status, count(*) AS n, count(spend) AS spent,
         total(json_extract(spend, '$.calls')) AS calls, total(json_extract(spend, '$.tokens')) AS tokens,
         total(json_extract(spend, '$.cost')) AS cost, total(json_extract(spend, '$.duration')) AS duration
       FROM items WHERE run_id = ? AND node_id = ? GROUP BY status`,
    ),
    itemPage: db.prepare(
      `SELECT record, key, value FROM items WHERE run_id = ? AND node_id = ? ORDER BY idx LIMIT ? OFFSET ?`,
    ),
    itemPageOf: db.prepare(
      `SELECT record, key, value FROM items WHERE run_id = ? AND node_id = ? AND status = ?
       ORDER BY idx LIMIT ? OFFSET ?`,
    ),
    list: db.prepare(`SELECT * FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?`),
    takeLease: db.prepare(
      `UPDATE runs SET lease_owner = @owner, lease_heartbeat = @now, lease_expires = @expires
       WHERE run_id = @runId AND (lease_owner IS NULL OR lease_owner = @owner OR lease_expires <= @now)`,
    ),
    renewLease: db.prepare(
      `UPDATE runs SET lease_heartbeat = @now, lease_expires = @expires
       WHERE run_id = @runId AND lease_owner = @owner`,
    ),
    releaseLease: db.prepare(
      `UPDATE runs SET lease_owner = NULL, lease_heartbeat = NULL, lease_expires = NULL
       WHERE run_id = ? AND lease_owner = ?`,
    ),
  };
}

/** Writes one mutation of run `runId` with the statements `s` (inside the caller's transaction). */
export function applyMutation(s: RunStatements, runId: string, m: RunMutation): void {
  switch (m.kind) {
    case "artifact":
      s.artifact.run(runId, m.key, JSON.stringify(m.value ?? null));
      break;
    case "node":
      s.node.run(runId, m.nodeId, JSON.stringify(m.record));
      break;
    case "item": {
      // An item's artifact rides in its row: one write per item (see RunMutation).
      const key = "value" in m ? m.item.key : undefined;
      s.item.run(
        runId,
        m.nodeId,
        m.item.index,
        JSON.stringify(m.item),
        key ?? null,
        key !== undefined ? JSON.stringify(m.value ?? null) : null,
        m.item.status,
        m.item.details?.spend === undefined ? null : JSON.stringify(m.item.details.spend),
      );
      break;
    }
    case "status":
      s.status.run(
        m.status,
        m.updatedAt,
        m.error ? JSON.stringify(m.error) : null,
        m.eventSeq ?? null,
        runId,
      );
      break;
    case "resolution": {
      if (m.item === undefined) {
        const row = s.getNode.get(runId, m.nodeId) as { record: string } | undefined;
        const record = row && (JSON.parse(row.record) as NodeRecord);
        if (record?.escalation) {
          record.escalation.resolution = m.resolution;
          s.node.run(runId, m.nodeId, JSON.stringify(record));
        }
      } else {
        const row = s.getItem.get(runId, m.nodeId, m.item) as { record: string } | undefined;
        const record = row && (JSON.parse(row.record) as ItemRecord);
        if (record?.escalation) {
          record.escalation.resolution = m.resolution;
          s.itemRecord.run(JSON.stringify(record), runId, m.nodeId, m.item);
        }
      }
      break;
    }
    case "repair": {
      const row = s.getRepairs.get(runId) as { repairs: string | null } | undefined;
      const repairs = row?.repairs ? (JSON.parse(row.repairs) as RepairRecord[]) : [];
      s.setRepairs.run(JSON.stringify(withRepair(repairs, m.repair)), runId);
      break;
    }
  }
}

/** A `runs` row as the run's record. */
export function toRunRecord(row: Record<string, string>): RunRecord {
  return {
    runId: row.run_id!,
    planName: row.plan_name!,
    fingerprint: row.fingerprint!,
    plan: JSON.parse(row.plan!),
    status: row.status as RunRecord["status"],
    createdAt: row.created_at!,
    updatedAt: row.updated_at!,
    options: readRunOptions(JSON.parse(row.options!)),
    ...(row.error ? { error: JSON.parse(row.error) } : {}),
    ...(row.parent_run_id ? { parentRunId: row.parent_run_id } : {}),
    ...(row.root_run_id ? { rootRunId: row.root_run_id } : {}),
    ...(row.repairs ? { repairs: JSON.parse(row.repairs) as RepairRecord[] } : {}),
    ...(row.event_seq != null ? { eventSeq: Number(row.event_seq) } : {}),
    ...(row.lease_owner
      ? {
          lease: {
            owner: row.lease_owner,
            heartbeatAt: new Date(Number(row.lease_heartbeat)).toISOString(),
            expiresAt: new Date(Number(row.lease_expires)).toISOString(),
          },
        }
      : {}),
  };
}
