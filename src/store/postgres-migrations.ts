import type pg from "pg";
import { withTransaction } from "./postgres-transaction.js";

/**
 * The PostgreSQL store's schema, as numbered migrations applied in order on first use. Never edit a
 * published migration: add the next one.
 */
export const POSTGRES_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE deputy.runs (
  run_id text PRIMARY KEY, plan_name text NOT NULL, fingerprint text NOT NULL, plan json NOT NULL,
  status text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL, options jsonb NOT NULL,
  error jsonb, lease_owner text, lease_heartbeat timestamptz, lease_expires timestamptz
);
CREATE INDEX runs_created_at ON deputy.runs (created_at DESC);
CREATE INDEX runs_updated_at ON deputy.runs (updated_at);
CREATE TABLE deputy.artifacts (
  run_id text NOT NULL REFERENCES deputy.runs ON DELETE CASCADE, key text NOT NULL, value json NOT NULL,
  PRIMARY KEY (run_id, key)
);
CREATE TABLE deputy.nodes (
  run_id text NOT NULL REFERENCES deputy.runs ON DELETE CASCADE, node_id text NOT NULL, record jsonb NOT NULL,
  PRIMARY KEY (run_id, node_id)
);
CREATE TABLE deputy.items (
  run_id text NOT NULL REFERENCES deputy.runs ON DELETE CASCADE, node_id text NOT NULL, idx integer NOT NULL,
  record jsonb NOT NULL, key text, value json,
  PRIMARY KEY (run_id, node_id, idx)
);
-- Distributed runs: a unit's outcome, written by the worker that ran it, keyed by its idempotency key. Every
-- statement on it is built by postgres-unit-results.ts, its owner.
CREATE TABLE deputy.unit_results (
  key text PRIMARY KEY, run_id text NOT NULL, outcome json NOT NULL, worker text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX unit_results_run ON deputy.unit_results (run_id);
-- Distributed runs: each worker pool's last heartbeat (dead pools' jobs are unlocked).
CREATE TABLE deputy.workers (
  pool_id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL, heartbeat_at timestamptz NOT NULL
);
`,
  },
  {
    // Repairs (issue 24): a repaired run's lineage, and the repairs asked for a run (a JSON array of records).
    version: 2,
    sql: `
ALTER TABLE deputy.runs ADD COLUMN parent_run_id text, ADD COLUMN root_run_id text, ADD COLUMN repairs jsonb;
CREATE INDEX runs_root_run_id ON deputy.runs (root_run_id) WHERE root_run_id IS NOT NULL;
`,
  },
  {
    // Watched runs (issue 40): the sequence number of the run's last event, so a resume numbers on from it.
    version: 3,
    sql: `ALTER TABLE deputy.runs ADD COLUMN event_seq integer;`,
  },
  {
    // The cache (issue 40): tools' results and delegates' proposals, shared by every process on the store. Times
    // are epoch milliseconds from the caller's clock, as in the other stores. Statements: postgres-cache.ts.
    version: 4,
    sql: `
CREATE TABLE deputy.cache (
  key text PRIMARY KEY, scope text NOT NULL, value json NOT NULL, created_at bigint NOT NULL, expires_at bigint
);
CREATE INDEX cache_by_scope ON deputy.cache (scope);
`,
  },
];

/** Applies the migrations not yet applied, under an advisory lock so concurrent first uses do not race. */
export async function migratePostgres(client: pg.ClientBase): Promise<void> {
  await withTransaction(client, async () => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('deputy.migrations'))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS deputy;
      CREATE TABLE IF NOT EXISTS deputy.migrations (
        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ v: number | null }>(
      "SELECT max(version) AS v FROM deputy.migrations",
    );
    const current = rows[0]?.v ?? 0;
    for (const m of POSTGRES_MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query("INSERT INTO deputy.migrations (version) VALUES ($1)", [m.version]);
    }
  });
}
