import type pg from "pg";

/**
 * The outcomes of distributed units: the table `deputy.unit_results`, one row per unit that a worker ran —
 * `key` (the unit's idempotency key, `runId/nodeId[/index]`), `run_id`, `outcome` (its `UnitOutcome` as JSON),
 * `worker` (who ran it) and `created_at`.
 *
 * Owned here, in the store room, where it is created: the PostgreSQL store's migration 1 creates it
 * (`postgres-migrations.ts`), `PostgresRunStore.prune` deletes a pruned run's rows ({@link UNIT_RESULTS_PRUNE}),
 * and every other statement that reads or writes it is built by this module. The dispatcher and the worker
 * (`src/distributed/`) run these statements and hold no SQL of their own on the table. Two of them also read
 * Graphile Worker's job table in the same statement, because the check and what follows from it must be one
 * atomic step; they are here because what they decide is this table's.
 */

/** What an outcome statement is given: a unit, the JSON of its outcome, and the worker that ran it. */
export interface UnitResult {
  key: string;
  runId: string;
  /** The `UnitOutcome` as JSON text. */
  outcomeJson: string;
  worker: string;
}

/** The outcomes stored for these units' keys (rows `{ key, outcome }`; units with none are absent). */
export function unitOutcomesQuery(keys: readonly string[]): pg.QueryConfig {
  return {
    text: `SELECT key, outcome FROM deputy.unit_results WHERE key = ANY($1::text[])`,
    values: [keys],
  };
}

/**
 * Right before a worker runs a unit: `done` (an outcome is stored: a worker that died before completing its job
 * ran it) and `mine` (the job is still locked by one of `poolIds`: a worker presumed dead has lost it).
 */
export function unitCheckQuery(key: string, jobId: string, poolIds: readonly string[]): QueryConfig {
  return {
    name: "deputy_unit_check",
    text: `SELECT EXISTS (SELECT 1 FROM deputy.unit_results WHERE key = $1) AS done,
                  EXISTS (SELECT 1 FROM graphile_worker._private_jobs
                          WHERE id = $2 AND locked_by = ANY($3::text[])) AS mine`,
    values: [key, jobId, poolIds],
  };
}

/**
 * Stores a unit's outcome and announces it on `channel` in one statement (the notification is delivered when it
 * commits): `stored` is the message when this outcome was stored, `notStored` when another worker's was stored
 * first — that one stands.
 */
export function storeUnitOutcomeQuery(
  result: UnitResult,
  channel: string,
  messages: { stored: string; notStored: string },
): QueryConfig {
  return {
    name: "deputy_unit_outcome",
    text: `WITH stored AS (
             INSERT INTO deputy.unit_results (key, run_id, outcome, worker) VALUES ($1, $2, $3, $4)
             ON CONFLICT (key) DO NOTHING RETURNING 1)
           SELECT pg_notify($5, CASE WHEN EXISTS (SELECT 1 FROM stored) THEN $6 ELSE $7 END)`,
    values: [
      result.key,
      result.runId,
      result.outcomeJson,
      result.worker,
      channel,
      messages.stored,
      messages.notStored,
    ],
  };
}

/**
 * One statement per batch of units to run: answers units whose success is stored (`done`: `[key, outcome]`
 * pairs), drops stored failures of units that run again (a resume runs an error or an escalation again, with
 * the escalation's resolution, if any), and adds a Graphile Worker job (`add_jobs` of `task`, at most
 * `maxAttempts`) for each unit with neither a success nor a job. A unit whose job is still queued or running is
 * left to it.
 */
export function enqueueUnitsQuery(
  units: readonly { key: string; payloadJson: string }[],
  task: string,
  maxAttempts: number,
): QueryConfig {
  return {
    name: "deputy_enqueue",
    text: ENQUEUE,
    values: [units.map((u) => u.key), units.map((u) => u.payloadJson), task, maxAttempts],
  };
}

/** A named, prepared statement (what a `UnitQueue` of the worker runs). */
export interface QueryConfig {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * The part of `PostgresRunStore.prune`'s statement that deletes the pruned runs' unit outcomes: a CTE that reads
 * the run ids from the CTE `gone`.
 */
export const UNIT_RESULTS_PRUNE = `DELETE FROM deputy.unit_results WHERE run_id IN (SELECT run_id FROM gone)`;

const ENQUEUE = `
WITH unit AS (
  SELECT u.key, u.payload, r.outcome,
         coalesce(r.outcome->>'status' IN ('ok', 'skipped'), false) AS done,
         EXISTS (SELECT 1 FROM graphile_worker._private_jobs j WHERE j.key = u.key) AS queued
  FROM unnest($1::text[], $2::text[]) AS u(key, payload)
  LEFT JOIN deputy.unit_results r ON r.key = u.key),
fresh AS (SELECT key, payload FROM unit WHERE NOT done AND NOT queued),
stale AS (
  DELETE FROM deputy.unit_results r USING unit
  WHERE r.key = unit.key AND unit.outcome IS NOT NULL AND NOT unit.done AND NOT unit.queued)
SELECT
  CASE WHEN EXISTS (SELECT 1 FROM fresh) THEN (
    SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
      SELECT ROW($3::text, payload::json, NULL, NULL, $4::int, key, NULL, NULL)::graphile_worker.job_spec
      FROM fresh)))
  ELSE 0 END AS added,
  coalesce((SELECT json_agg(json_build_array(key, outcome)) FROM unit WHERE done), '[]') AS done`;
