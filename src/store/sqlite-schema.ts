import type { DatabaseSync } from "node:sqlite";
import { sqliteTransaction } from "./sqlite-transaction.js";

// The SQLite run store's schema and its migrations (see SqliteRunStore).

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, plan_name TEXT NOT NULL, fingerprint TEXT NOT NULL, plan TEXT NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, options TEXT NOT NULL, error TEXT
);
CREATE TABLE IF NOT EXISTS artifacts (
  run_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes (
  run_id TEXT NOT NULL, node_id TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (run_id, node_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
  run_id TEXT NOT NULL, node_id TEXT NOT NULL, idx INTEGER NOT NULL, record TEXT NOT NULL,
  key TEXT, value TEXT,
  PRIMARY KEY (run_id, node_id, idx)
) WITHOUT ROWID;
-- The cache (cache-entry.ts): created by this schema on open, so older files get it with no migration.
CREATE TABLE IF NOT EXISTS cache (
  key TEXT PRIMARY KEY, scope TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS cache_by_scope ON cache (scope);
`;

/** Schema changes after the first version, by the `user_version` they bring the file to. */
const MIGRATIONS: [version: number, sql: string][] = [
  // Run ownership: who holds the run, their last heartbeat and when the lease lapses (ms since the epoch).
  [
    2,
    `ALTER TABLE runs ADD COLUMN lease_owner TEXT;
     ALTER TABLE runs ADD COLUMN lease_heartbeat INTEGER;
     ALTER TABLE runs ADD COLUMN lease_expires INTEGER;`,
  ],
  // Repairs (issue 24): a repaired run's lineage, and the repairs asked for a run (a JSON array of records).
  [
    3,
    `ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
     ALTER TABLE runs ADD COLUMN root_run_id TEXT;
     ALTER TABLE runs ADD COLUMN repairs TEXT;`,
  ],
];

/** Creates the tables, then brings an older file up to date (`PRAGMA user_version`, then the items' columns). */
export function migrateSqlite(db: DatabaseSync): void {
  sqliteTransaction(
    db,
    "immediate",
  )(() => {
    db.exec(SCHEMA);
    const current = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    let version = Math.max(1, current);
    for (const [to, sql] of MIGRATIONS) {
      if (to <= version) continue;
      db.exec(sql);
      version = to;
    }
    db.exec(`PRAGMA user_version = ${version}`);
  });
  addItemSummaryColumns(db);
  addEventSeqColumn(db);
}

/**
 * Watched runs (issue 40): the sequence number of a run's last event, so a resume numbers its events on from it.
 * Added by its presence, like the items' columns, not by `user_version`: a file of any version gets it on open.
 */
function addEventSeqColumn(db: DatabaseSync) {
  const columns = (
    db.prepare(`SELECT name FROM pragma_table_info('runs')`).all() as unknown as { name: string }[]
  ).map((c) => c.name);
  if (!columns.includes("event_seq")) db.exec(`ALTER TABLE runs ADD COLUMN event_seq INTEGER`);
}

/**
 * Items keep their status and spend in columns of their own, indexed, so a viewer counts 10,000 items by status
 * and sums their spend without parsing a record. Stores made before these columns get them (filled from the
 * records) on open.
 */
function addItemSummaryColumns(db: DatabaseSync) {
  const columns = (
    db.prepare(`SELECT name FROM pragma_table_info('items')`).all() as unknown as { name: string }[]
  ).map((c) => c.name);
  if (!columns.includes("status")) {
    db.exec(`ALTER TABLE items ADD COLUMN status TEXT;
      ALTER TABLE items ADD COLUMN spend TEXT;
      UPDATE items SET status = json_extract(record, '$.status'), spend = json_extract(record, '$.details.spend');`);
  }
  db.exec(`CREATE INDEX IF NOT EXISTS items_by_status ON items (run_id, node_id, status, spend)`);
}

/**
 * The SQLite result name of an error (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …): node:sqlite reports it as a
 * numeric `errcode` (the primary code is its low byte), better-sqlite3 as `code`.
 */
export function sqliteErrorName(error: unknown): string {
  const e = error as { code?: unknown; errcode?: unknown };
  if (typeof e.errcode === "number") {
    const primary: Record<number, string> = {
      5: "SQLITE_BUSY",
      6: "SQLITE_LOCKED",
      8: "SQLITE_READONLY",
      19: "SQLITE_CONSTRAINT",
    };
    return primary[e.errcode & 0xff] ?? `SQLITE_ERROR_${e.errcode}`;
  }
  return typeof e.code === "string" ? e.code : "";
}
